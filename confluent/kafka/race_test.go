//go:build race

package kafka_test

// raceEnabled: the test binary runs with the race detector, so the
// programs it builds do too.
const raceEnabled = true
