package docscheck

import (
	"testing"
)

// The checks fail on the drift they exist to catch: a flag of another
// subcommand, a flag nobody defines, a test name that does not exist, a
// package or directory that does not, a -run alternative behind "|".
func TestCheckerCatchesDrift(t *testing.T) {
	r := root(t)
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"go run ./cmd/rollsafe demo -records 100 -fault-at 0.2", true},
		{"go run ./cmd/rollsafe sim -records 100", false},               // demo's flag, not sim's
		{"rollsafe produce -brokers a:1 -topic t -tls-ca ca.pem", true}, // defined by a helper it calls
		{"rollsafe sim -tls-ca ca.pem", false},
		{"go run ./cmd/rollsafe demo -recordz 100", false},
		{"go run ./cmd/nothing", false},
		{"kafkacluster -brokers 3 -direct", true},
		{"go test ./client/conformance -run 'TestChaos$' -args -chaos.runs=10", true},
		{"go test ./client/conformance -run 'TestChaos$' -args -chaos.runz=10", false},
		{"go test ./client/conformance -run 'TestChaos$|TestNoSuchScenario'", false},
		{"go test ./client/conformance -run 'TestChaos$/anything|TestNoSuchScenario'", true}, // after "/": subtests
		{"go test ./kafkatest/conformance -run RandomFaults -v -args -faults.runs=16", true},
		{"go test -run '^$' -bench Recovery -benchtime 5x ./client/", true},
		{"go test -run '^$' -bench NoSuchBench ./client/", false},
		{"go test ./nowhere/...", false},
		{"cd nowhere && go test ./...", false},
		{"(cd bench && go run ./perftable -rounds 3 -clients rollsafe,kgo)", true},
		{"(cd bench && go run ./perftable -roundz 3)", false},
		{"kafkatest/fetch.sh", true},
		{"kafkatest/fetched.sh", false},
	} {
		dirs := []string{r}
		var cmd []string
		msg := ""
		check := func() {
			if m := checkCommand(r, &dirs, cmd); m != "" && msg == "" {
				msg = m
			}
			cmd = nil
		}
		for _, tk := range tokenize(c.line) {
			if !tk.op {
				cmd = append(cmd, tk.text)
				continue
			}
			check()
			switch tk.text {
			case "(":
				dirs = append(dirs, dirs[len(dirs)-1])
			case ")":
				dirs = dirs[:len(dirs)-1]
			}
		}
		check()
		if (msg == "") != c.ok {
			t.Errorf("%s: ok %v, got %q", c.line, c.ok, msg)
		}
	}
}

// Synopsis lines are words, not pipelines: "seed|none" stays one word,
// and a bracketed flag is a flag.
func TestTokenizeSynopsis(t *testing.T) {
	var got []string
	for _, w := range tokenize("rollsafe demo [-scenario seed|rolling-restart|none] [-fault-at 0.1] | head") {
		got = append(got, w.text)
	}
	want := []string{"rollsafe", "demo", "[-scenario", "seed|rolling-restart|none]", "[-fault-at", "0.1]", "|", "head"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if flagName("[-fault-at") != "fault-at" || flagName("-faults.runs=16") != "faults.runs" || flagName("-1") != "" {
		t.Error("flagName misreads a flag word")
	}
}
