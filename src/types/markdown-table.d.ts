declare module 'markdown-table' {
  function markdownTable(rows: string[][], options?: { align?: string | string[]; padding?: boolean }): string;
  export = markdownTable;
}
