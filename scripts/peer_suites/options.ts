/**
 * The command line of `scripts/peer_suites.ts`.
 *
 * @module
 */

/** What to run, and how. */
export interface PeerOptions {
  /** Copies of kubernetes-client/python: directories that hold `kubernetes/e2e_test/`. */
  readonly python: readonly string[];
  /** The Python interpreter that has the `kubernetes` client and pytest. */
  readonly pythonBin: string;
  /** `@kubernetes/client-node`'s `src/test/integration/` (or a copy of the repository). */
  readonly clientNodeTests?: string;
  /** Where `npm install @kubernetes/client-node@VERSION tsx` ran (it holds node_modules). */
  readonly clientNode?: string;
  /** The Node that runs them (client-node 2.x needs 22.19 or later). */
  readonly nodeBin: string;
  /** Only the tests whose name matches (pytest's `-k`; a part of a module's name). */
  readonly only?: string;
  /** Seconds one Python test, or one client-node test module, may take. */
  readonly timeout: number;
  /** Print the suites' own output as well. */
  readonly verbose: boolean;
  readonly help: boolean;
}

export const USAGE = `Run peers' Kubernetes suites, unchanged, against a fake cluster of ours.

    deno task peer-suites [options]

  --python DIR              a copy of kubernetes-client/python (a directory holding
                            kubernetes/e2e_test/); may be given more than once
  --python-bin PATH         the Python with the kubernetes client and pytest (python3)
  --client-node-tests DIR   @kubernetes/client-node's src/test/integration/ (or the
                            repository holding it), of the version installed below
  --client-node DIR         a directory where this ran:
                            npm install @kubernetes/client-node@VERSION tsx
  --node-bin PATH           the Node to run them with (node); client-node 2.x needs
                            22.19+: npm install node@22 in the same directory gives one,
                            DIR/node_modules/.bin/node
  --only PATTERN            only the tests matching it (pytest -k; part of a module name)
  --timeout SECONDS         per test: a Python test, a client-node module (90)
  --verbose                 print the suites' own output too
  -h, --help                this text

Each suite runs against a fresh fake cluster on a free loopback port, over HTTPS with a
bearer token, found through KUBECONFIG. It prints PASS/FAIL/SKIP per test and a summary
per suite; the exit code is 1 when a test failed.`;

/** The options, or the one line that says what is wrong with the command line. */
export function parsePeerOptions(args: readonly string[]): PeerOptions | string {
  const python: string[] = [];
  let pythonBin = "python3";
  let clientNodeTests: string | undefined;
  let clientNode: string | undefined;
  let nodeBin = "node";
  let only: string | undefined;
  let timeout = 90;
  let verbose = false;
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (flag === "-h" || flag === "--help") {
      help = true;
      continue;
    }
    if (flag === "--verbose") {
      verbose = true;
      continue;
    }
    const value = args[i + 1];
    if (value === undefined || value.startsWith("--")) {
      return `${flag} needs a value; see --help.`;
    }
    i++;
    if (flag === "--python") python.push(value);
    else if (flag === "--python-bin") pythonBin = value;
    else if (flag === "--client-node-tests") clientNodeTests = value;
    else if (flag === "--client-node") clientNode = value;
    else if (flag === "--node-bin") nodeBin = value;
    else if (flag === "--only") only = value;
    else if (flag === "--timeout") {
      timeout = Number(value);
      if (!Number.isFinite(timeout) || timeout <= 0) {
        return `--timeout ${value} is not a number of seconds above 0.`;
      }
    } else return `Unknown option ${flag}; see --help.`;
  }
  if ((clientNodeTests === undefined) !== (clientNode === undefined)) {
    return "--client-node-tests and --client-node go together: the tests and the package they test.";
  }
  if (!help && python.length === 0 && clientNode === undefined) {
    return "Nothing to run: give --python DIR and/or --client-node-tests DIR --client-node DIR.";
  }
  return { python, pythonBin, clientNodeTests, clientNode, nodeBin, only, timeout, verbose, help };
}
