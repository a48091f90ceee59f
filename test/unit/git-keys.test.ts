// The keys of a git config that make git run a program (git/repos.ts runsCode): what the guard refuses in a
// repository a run made or changed — including the ones a review found missing (ssh signing, config hooks).
import { describe, expect, it } from "vitest";
import { runsCode } from "../../src/git/repos.js";

describe("git config keys that run code", () => {
  it.each([
    ["core.fsmonitor", "/tmp/x"],
    ["gpg.ssh.defaultkeycommand", "/tmp/x"],
    ["gpg.ssh.program", "/tmp/x"],
    ["gpg.program", "/tmp/x"],
    ["hook.pre-commit.command", "/tmp/x"],
    ["lfs.customtransfer.evil.path", "/tmp/x"],
    ["imap.tunnel", "/tmp/x"],
    ["sendemail.smtpserver", "/tmp/x"],
    ["guitool.run.cmd", "/tmp/x"],
    ["alias.st", "!sh -c x"],
  ])("%s is one", (key, value) => {
    expect(runsCode(key, value)).toBe(true);
  });

  it.each([
    ["user.name", "x"],
    ["commit.gpgsign", "true"],
    ["gpg.format", "ssh"],
    ["alias.st", "status"],
    ["remote.origin.url", "https://example.org/r.git"],
  ])("%s is not (alone)", (key, value) => {
    expect(runsCode(key, value)).toBe(false);
  });
});
