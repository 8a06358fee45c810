/**
 * examples/09-testing: the example is a test of its operator; it runs here as part of the
 * suite, as an operator's own tests would run in theirs.
 */
import "../../examples/09-testing/example_test.ts";
