package docscheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// TestQuickstart: the README's quickstart is examples/quickstart/main.go
// byte for byte, and that program, run against a 3-broker sim, writes
// its ten records once each, at the partition and offset it prints.
func TestQuickstart(t *testing.T) {
	r := root(t)
	src, err := os.ReadFile(filepath.Join(r, "examples", "quickstart", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(r, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("```go\n"+string(src)+"```\n")) {
		t.Fatal("README.md's quickstart block is not examples/quickstart/main.go as it is")
	}

	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("orders", 3, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "run", "./examples/quickstart", "-brokers", strings.Join(c.Addrs(), ","))
	cmd.Dir = r
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run ./examples/quickstart: %v\n%s%s", err, out, stderr.Bytes())
	}

	line := regexp.MustCompile(`^(customer-\d+) at partition (\d+), offset (\d+)$`)
	printed := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("the quickstart printed %q, not a delivery", l)
		}
		printed[m[1]] = m[2] + "/" + m[3]
	}
	if len(printed) != 10 {
		t.Fatalf("the quickstart reported %d records delivered, want 10:\n%s", len(printed), out)
	}
	logs, err := readback.ReadTopic(ctx, c.Addrs(), "orders")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, recs := range logs {
		for _, rec := range recs {
			k := string(rec.Key)
			if _, dup := found[k]; dup {
				t.Errorf("%s is in the log twice", k)
			}
			found[k] = fmt.Sprintf("%d/%d", rec.Partition, rec.Offset)
		}
	}
	for k, at := range printed {
		if found[k] != at {
			t.Errorf("%s: printed at %s, in the log at %q", k, at, found[k])
		}
	}
	if len(found) != 10 {
		t.Errorf("the log holds %d records, want 10", len(found))
	}
}
