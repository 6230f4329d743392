/** Where the "remote" project's service listens (set by remoteService.ts), for clients.ts. */
let address = "";

export function setRemoteServiceUrl(url: string): void {
  address = url;
}

export function remoteServiceUrl(): string {
  if (!address)
    throw new Error("no service for the remote project: is remoteService.ts a setup file?");
  return address;
}
