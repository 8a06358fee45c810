/**
 * Files: writing, making directories, telling files from directories, listing entries.
 */
import {
  currentDirectory,
  directoryEntries,
  makeDirectory,
  pathKind,
  readTextFile,
  writeTextFile,
} from "../../src/platform/files.ts";
import { assertEquals } from "../assert.ts";

Deno.test("files are written, directories made and listed, kinds told apart", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assertEquals(await pathKind(`${dir}/a`), undefined);
    await makeDirectory(`${dir}/a/b`);
    await makeDirectory(`${dir}/a/b`); // existing: fine
    assertEquals(await pathKind(`${dir}/a/b`), "directory");
    assertEquals(await directoryEntries(`${dir}/a/b`), []);
    await writeTextFile(`${dir}/a/b/x.txt`, "one");
    await writeTextFile(`${dir}/a/b/x.txt`, "two");
    assertEquals(await readTextFile(`${dir}/a/b/x.txt`), "two");
    assertEquals(await pathKind(`${dir}/a/b/x.txt`), "file");
    assertEquals(await directoryEntries(`${dir}/a`), ["b"]);
    assertEquals(currentDirectory(), Deno.cwd());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
