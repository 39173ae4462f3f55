import { keepDaemonLogOfFailedTests } from '../helpers/daemonLogOnFailure.js';

keepDaemonLogOfFailedTests();
