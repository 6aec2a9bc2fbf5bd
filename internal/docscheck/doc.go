// Package docscheck holds the test that keeps the documentation true to the
// code: every shell command in README.md, docs/*.md and bench/README.md that
// runs a package of this repository (go run, go test, rollsafe, kafkacluster)
// names a package that exists, uses only flags it defines and, with -run or
// -bench, names tests that exist; every relative link resolves; the package
// graph in docs/architecture.md is the one the Go files import; and the
// README's quickstart is examples/quickstart, byte for byte, run against the
// simulator and checked by reading the log back. It has no code of its own:
// see docscheck_test.go and docs/testing.md.
package docscheck
