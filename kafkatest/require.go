package kafkatest

import (
	"context"
	"os"
	"testing"
	"time"
)

// InCI reports whether the environment says it is CI (CI=true): there a
// real-cluster test that cannot run fails instead of skipping.
func InCI() bool { return os.Getenv("CI") == "true" }

// Require returns the default version's runtime, or ends t: with CI=true
// it fails (the CI must run the real-cluster tests), otherwise it skips
// saying how to run them.
func Require(t testing.TB) Runtime {
	t.Helper()
	return RequireVersion(t, DefaultVersion)
}

// RequireVersion is Require for Kafka version v.
func RequireVersion(t testing.TB, v Version) Runtime {
	t.Helper()
	rt, err := FindRuntimeFor(v)
	if err == nil {
		return rt
	}
	if InCI() {
		t.Fatalf("%v (CI=true: the real-cluster tests must run; .ci/run calls kafkatest/fetch.sh)", err)
	}
	t.Skipf("skipping real-Kafka test: %v", err)
	return Runtime{}
}

// LaunchT starts a cluster for t (see Require for when it cannot) and
// stops it when t ends; if t failed, the tail of every broker's log is
// written to t's log first.
func LaunchT(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	rt := RequireVersion(t, cfg.Version)
	cfg.Runtime = rt
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	// Long enough to wait for another package's cluster (see LockPath);
	// each node's start is bounded by Config.StartTimeout.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c, err := Launch(ctx, cfg)
	if err != nil {
		t.Fatalf("kafkatest: launch: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.LogTails(60))
		}
		if err := c.Close(); err != nil {
			t.Errorf("kafkatest: close: %v", err)
		}
	})
	return c
}
