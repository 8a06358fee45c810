import { assert, assertEquals } from "../../assert.ts";
import { SeededRandom } from "../../../src/testing/simulation/seeded_random.ts";

Deno.test("the seeded generator repeats its sequence for a seed and differs for another", () => {
  const draw = (seed: number) => {
    const random = new SeededRandom(seed);
    return [random.next(), random.below(1000), random.uuid()];
  };
  assertEquals(draw(5), draw(5));
  assert(JSON.stringify(draw(5)) !== JSON.stringify(draw(6)));
  const uuid = new SeededRandom(1).uuid();
  assert(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid), uuid);
});

Deno.test("numbers spread over [0, 1); chances and ranges keep to their bounds", () => {
  const random = new SeededRandom(42);
  const draws = Array.from({ length: 10_000 }, () => random.next());
  assert(draws.every((x) => x >= 0 && x < 1));
  const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
  assert(Math.abs(mean - 0.5) < 0.02, `mean ${mean}`);
  assertEquals(random.chance(0), false);
  assertEquals(random.chance(1), true);
  for (let i = 0; i < 1000; i++) {
    const n = random.between(3, 5);
    assert(n >= 3 && n < 5);
    assert(random.below(7) < 7);
  }
});
