/**
 * What an upstream worker needs of the JavaScript runtime beyond Node 20, loaded into the worker before
 * chrome-devtools-mcp (`node --import`, or first thing in the prepared worker's launcher). Upstream is written for
 * Node 22 and calls Promise.withResolvers, the Set methods (`get_css_styles` uses `intersection`), iterator helpers,
 * Array.fromAsync and Object/Map.groupBy; on Node 20 those calls fail. core-js defines each one only where the
 * runtime lacks it, so on Node 22 and later this changes nothing. Only workers load it: the daemon and the CLI
 * do not need it.
 */
import 'core-js/actual/promise/with-resolvers.js';
import 'core-js/actual/set/intersection.js';
import 'core-js/actual/set/union.js';
import 'core-js/actual/set/difference.js';
import 'core-js/actual/set/symmetric-difference.js';
import 'core-js/actual/set/is-subset-of.js';
import 'core-js/actual/set/is-superset-of.js';
import 'core-js/actual/set/is-disjoint-from.js';
import 'core-js/actual/iterator/index.js';
import 'core-js/actual/array/from-async.js';
import 'core-js/actual/object/group-by.js';
import 'core-js/actual/map/group-by.js';
