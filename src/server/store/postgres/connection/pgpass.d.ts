/** pgpass (node-postgres' own ~/.pgpass reader; no published types): the password for a connection, if any. */
declare module 'pgpass' {
  export interface ConnInfo {
    host?: string | null;
    port?: number | string | null;
    database?: string | null;
    user?: string | null;
  }
  function pgpass(connInfo: ConnInfo, cb: (password: string | undefined) => void): void;
  export default pgpass;
}
