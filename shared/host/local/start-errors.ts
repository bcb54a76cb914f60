/**
 * A reason the local platform cannot start that the person running it can fix: `npm start` prints the message as
 * one line and exits with code 1, without a stack trace.
 */
export class LocalStartError extends Error {
  override name = 'LocalStartError';
}

/** The HTTP port is taken (often by another `npm start`). */
export class PortInUseError extends LocalStartError {
  override name = 'PortInUseError';
  constructor(port: number, host: string) {
    super(
      `Port ${port} on ${host} is already in use (another npm start?). ` +
        `Stop that process, or choose another port: PORT=${port + 1} npm start`,
    );
  }
}

/** Another running process keeps its data in the same directory. */
export class DataDirLockedError extends LocalStartError {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data directory ${dataDir} is in use by process ${pid} (another npm start?). ` +
        `Stop that process, or give this one its own directory: DATA_DIR=${dataDir}-2 npm start`,
    );
  }
}
