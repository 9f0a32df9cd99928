import { describe, expect, it } from "vitest";
import { aptMirror } from "../support/chroma-server.js";

describe("aptMirror (the Debian mirror for the test Chroma server's C library)", () => {
  it("takes the host's release entry from deb822 sources, not the security one", () => {
    const text = [
      "Types: deb\nURIs: http://mirror.example.org/debian-security\nSuites: bookworm-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg",
      "Types: deb\nURIs: http://mirror.example.org/debian/\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg",
    ].join("\n\n");
    expect(aptMirror([{ name: "/etc/apt/sources.list.d/debian.sources", text }], "bookworm")).toEqual({
      uri: "http://mirror.example.org/debian",
      signedBy: "/usr/share/keyrings/debian-archive-keyring.gpg",
    });
  });

  it("reads one-line .list entries, skips comments, deb-src and other releases", () => {
    const text =
      "# deb http://old.example/debian bookworm main\ndeb-src http://src.example/debian bookworm main\ndeb https://packages.example.com/apt cloud-sdk-bookworm main\ndeb [arch=amd64 signed-by=/k.gpg] http://local.mirror/debian bookworm main contrib\n";
    expect(aptMirror([{ name: "/etc/apt/sources.list", text }], "bookworm")).toEqual({
      uri: "http://local.mirror/debian",
      signedBy: "/k.gpg",
    });
  });

  it("finds nothing when no entry serves the release, or files are neither .list nor .sources", () => {
    expect(
      aptMirror(
        [{ name: "/etc/apt/sources.list", text: "deb http://archive.ubuntu.com/ubuntu noble main\n" }],
        "bookworm",
      ),
    ).toBeUndefined();
    expect(
      aptMirror(
        [{ name: "x.sources", text: "Types: deb\nURIs: http://m/debian\nSuites: bookworm\nEnabled: no\n" }],
        "bookworm",
      ),
    ).toBeUndefined();
  });
});
