/**
 * The parameters through which each tool of the pinned upstream (chrome-devtools-mcp 1.11.0) reads or writes local
 * files: its tools' `verifyFilesSchema`. A unit test checks this table against upstream's own tool definitions.
 */
export const FILE_PARAMS: Readonly<Record<string, readonly string[]>> = {
  analyze_heapsnapshot_contexts: ['filePath'],
  close_heapsnapshot: ['filePath'],
  compare_heapsnapshots: ['baseFilePath', 'currentFilePath'],
  evaluate_script: ['filePath', 'sourcePath'],
  get_heapsnapshot_class_nodes: ['filePath'],
  get_heapsnapshot_details: ['filePath'],
  get_heapsnapshot_dominators: ['filePath'],
  get_heapsnapshot_duplicate_strings: ['filePath'],
  get_heapsnapshot_edges: ['filePath'],
  get_heapsnapshot_object_details: ['filePath'],
  get_heapsnapshot_retainers: ['filePath'],
  get_heapsnapshot_retaining_paths: ['filePath'],
  get_heapsnapshot_summary: ['filePath'],
  get_network_request: ['requestFilePath', 'responseFilePath'],
  install_extension: ['path'],
  install_pwa: ['installUrlOrBundleUrl'],
  lighthouse_audit: ['outputDirPath'],
  performance_start_trace: ['filePath'],
  performance_stop_trace: ['filePath'],
  query_heapsnapshot_objects: ['filePath'],
  screencast_start: ['filePath'],
  take_heapsnapshot: ['filePath'],
  take_screenshot: ['filePath'],
  take_snapshot: ['filePath'],
  upload_file: ['filePaths'],
};

/**
 * Upstream replaces the extension of some paths before writing (`McpContext.ensureExtension`): the file it writes is
 * not the one named. Checks must look at the file actually written.
 */
export const WRITTEN_EXTENSION: Readonly<Record<string, string>> = {
  take_snapshot: '.txt',
  take_heapsnapshot: '.heapsnapshot',
  screencast_start: '.mp4',
};

/**
 * The file parameters through which a tool writes into the session's folder (a screenshot, a snapshot, a trace, a
 * heap snapshot, a request's body, a script's result, audit reports, a recording); the others only read.
 */
export const WRITE_PARAMS: Readonly<Record<string, readonly string[]>> = {
  evaluate_script: ['filePath'],
  get_network_request: ['requestFilePath', 'responseFilePath'],
  lighthouse_audit: ['outputDirPath'],
  performance_start_trace: ['filePath'],
  performance_stop_trace: ['filePath'],
  screencast_start: ['filePath'],
  take_heapsnapshot: ['filePath'],
  take_screenshot: ['filePath'],
  take_snapshot: ['filePath'],
};

/**
 * The file parameters that name a folder rather than a file: upstream reads an unpacked extension from it, or writes
 * its reports inside it. Every other file parameter names a file, which upstream may write under another extension.
 */
export const FOLDER_PARAMS: Readonly<Record<string, readonly string[]>> = {
  install_extension: ['path'],
  lighthouse_audit: ['outputDirPath'],
};
