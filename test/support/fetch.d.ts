// Tests read JSON answers whose shape they assert field by field; `any` keeps those reads short.
declare global {
  interface Response {
    json(): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  }
}
export {};
