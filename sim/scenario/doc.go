// Package scenario plays fault schedules against a *sim.Cluster, independent
// of any client: named scenarios (Seed: a broker goes down, comes back,
// catches up and takes its leadership back) and seeded random chaos
// schedules (Random) that print themselves, so a failing run can be
// reproduced from its seed.
//
// A Schedule is a list of Steps at offsets from its start. Some steps name
// their target relative to the cluster's state when they run (the leader of
// a partition, the broker stopped last, a lagging replica), so the same
// schedule makes sense on any cluster with the topic. A Player runs a
// schedule, records what each step did (Applied), tells a progress line
// what the current fault is (Current) and restores a healthy cluster
// afterwards (Heal).
//
// See docs/simulator.md and docs/testing.md (the chaos schedules) in the
// repository.
package scenario
