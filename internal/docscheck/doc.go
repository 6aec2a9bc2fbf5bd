// Package docscheck holds the test that keeps the documentation true to the
// code. Every shell command in README.md, docs/*.md, idempotence/README.md
// and bench/README.md (fenced, or quoted inline) that runs a package of this
// repository (go run, go test, rollsafe, kafkacluster) must name a package
// that exists and use only flags it defines, and its -run, -skip and -bench
// patterns must name functions that exist; every relative link must resolve;
// the package graph in docs/architecture.md must be the one the Go files
// import; and the README's quickstart must be examples/quickstart byte for
// byte, which the test runs against the simulator, reading the log back. The
// package has no code of its own; docs/testing.md describes the check.
package docscheck
