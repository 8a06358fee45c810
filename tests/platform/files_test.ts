/**
 * Files: writing, making directories, telling files from directories, listing entries.
 */
import { absolutePath } from "../../src/platform/absolute_paths.ts";
import {
  copyPath,
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

Deno.test("a directory is copied with everything in it; paths are made absolute", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await makeDirectory(`${dir}/from/sub/deeper`);
    await writeTextFile(`${dir}/from/a.ts`, "a");
    await writeTextFile(`${dir}/from/sub/deeper/b.json`, "{}");
    await copyPath(`${dir}/from`, `${dir}/to`);
    assertEquals(await readTextFile(`${dir}/to/a.ts`), "a");
    assertEquals(await readTextFile(`${dir}/to/sub/deeper/b.json`), "{}");
    await copyPath(`${dir}/from/a.ts`, `${dir}/single.ts`);
    assertEquals(await readTextFile(`${dir}/single.ts`), "a");
    assertEquals(absolutePath(`${dir}/from/./sub/../a.ts`), `${dir}/from/a.ts`);
    assertEquals(absolutePath("x/../y"), `${Deno.cwd()}/y`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
