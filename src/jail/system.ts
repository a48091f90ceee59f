// What of the host's system a jail shows (bwrap.ts binds it): the top-level links and folders of a merged
// /usr, the /etc entries that exist here, and which of /proc's host-wide knobs this kernel has. Read once
// per seat, at start.
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { ETC_ENTRIES, PROC_HIDDEN_DIRS, PROC_HIDDEN_FILES, PROC_READ_ONLY, type SystemLayout, TOP_ENTRIES } from "./bwrap.js";

function procEntries(names: readonly string[], want: "file" | "dir"): string[] {
  return names.filter((n) => {
    try {
      const st = lstatSync(`/proc/${n}`);
      return want === "dir" ? st.isDirectory() : true;
    } catch {
      return false;
    }
  });
}

export function systemLayout(): SystemLayout {
  const tops: Record<string, string> = {};
  for (const t of TOP_ENTRIES) {
    try {
      const st = lstatSync(t);
      if (st.isSymbolicLink()) tops[t] = readlinkSync(t);
      else if (st.isDirectory()) tops[t] = "dir";
    } catch {
      // not on this system
    }
  }
  return {
    tops,
    etc: ETC_ENTRIES.filter((e) => existsSync(e)),
    proc: {
      readOnly: procEntries(PROC_READ_ONLY, "file"),
      hiddenFiles: procEntries(PROC_HIDDEN_FILES, "file"),
      hiddenDirs: procEntries(PROC_HIDDEN_DIRS, "dir"),
    },
  };
}
