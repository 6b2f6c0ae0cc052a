// Files the build emits as they are and names by URL (Vite's `?url`): the extension frame's script and style.
declare module '*?url&no-inline' {
  const url: string;
  export default url;
}
