/**
 * Finding Python Kopf for the comparison (`scripts/bench/compare.ts`): which Python imports
 * it, from a source checkout named by `KOPF_BENCH_COMPARE_PYTHON_KOPF` (put on PYTHONPATH)
 * or installed. `KOPF_BENCH_COMPARE_PYTHON` names the Python; else `python3` on PATH is
 * tried, then the system's `/usr/bin/python3` (where distributions install the packages
 * Kopf needs). The controller's own module (`compare/python_kopf.py --probe`) does the
 * import, so that what is found is what runs.
 */

/** A Python that imports Kopf, and how to run it. */
export interface PythonKopf {
  python: string;
  /** Added to the child's environment (PYTHONPATH with the source checkout). */
  env: Record<string, string>;
  /** Kopf's version (`0+source` from a checkout) and where its package is. */
  found: string;
}

const MODULE = new URL("../compare/python_kopf.py", import.meta.url).pathname;

const HOW =
  "set KOPF_BENCH_COMPARE_PYTHON_KOPF to a checkout of github.com/nolar/kopf (a release tag) " +
  "with its dependencies installed for the Python (aiohttp, click, iso8601, jsonpatch, " +
  "python-json-logger, pyyaml; KOPF_BENCH_COMPARE_PYTHON picks the Python), or pip install kopf";

/** Python Kopf if some Python imports it; else one line saying why not and how to get it. */
export function findPythonKopf(): PythonKopf | string {
  const source = Deno.env.get("KOPF_BENCH_COMPARE_PYTHON_KOPF");
  if (source !== undefined) {
    try {
      Deno.statSync(`${source}/kopf/__init__.py`);
    } catch {
      return `KOPF_BENCH_COMPARE_PYTHON_KOPF=${source} holds no kopf/__init__.py: ${HOW}.`;
    }
  }
  const given = Deno.env.get("KOPF_BENCH_COMPARE_PYTHON");
  const pythons = given !== undefined ? [given] : ["python3", "/usr/bin/python3"];
  const inherited = Deno.env.get("PYTHONPATH");
  const env: Record<string, string> = source === undefined
    ? {}
    : { PYTHONPATH: inherited ? `${source}:${inherited}` : source };
  let why = "";
  for (const python of pythons) {
    try {
      const probe = new Deno.Command(python, { args: [MODULE, "--probe"], env }).outputSync();
      const said = new TextDecoder().decode(probe.success ? probe.stdout : probe.stderr).trim();
      if (probe.success) return { python, env, found: said };
      why = `${python}: ${said.split("\n").pop()}`;
    } catch (error) {
      why = `${python}: ${error instanceof Error ? error.message : error}`;
    }
  }
  return `Python Kopf is not found (${why}): ${HOW}.`;
}
