package kafkatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// reassignTool sets a partition's replicas on a broker before Kafka 2.4,
// which has no AlterPartitionReassignments: through Kafka's own
// ReassignPartitionsCommand against the cluster's ZooKeeper (the way
// operators of those versions reassign), then waits as Reassign does.
func (c *Cluster) reassignTool(ctx context.Context, topic string, partition int32, replicas []int32) error {
	if c.zk == nil {
		return fmt.Errorf("kafkatest: reassign %s[%d]: Kafka %s has no AlterPartitionReassignments and the cluster no ZooKeeper", topic, partition, c.cfg.Version)
	}
	plan := map[string]any{"version": 1, "partitions": []map[string]any{
		{"topic": topic, "partition": partition, "replicas": replicas},
	}}
	b, err := json.Marshal(plan)
	if err != nil {
		return fmt.Errorf("kafkatest: reassign %s[%d]: %w", topic, partition, err)
	}
	f := filepath.Join(c.cfg.Dir, fmt.Sprintf("reassign-%s-%d.json", topic, partition))
	if err := os.WriteFile(f, b, 0o644); err != nil {
		return fmt.Errorf("kafkatest: reassign %s[%d]: %w", topic, partition, err)
	}
	// A short-lived JVM: no optimising JIT, the simplest GC.
	cmd := exec.CommandContext(ctx, c.cfg.Runtime.Java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
		"-cp", c.cfg.Runtime.Classpath(), "kafka.admin.ReassignPartitionsCommand",
		"--zookeeper", c.zk.zooKeeperConnect(), "--reassignment-json-file", f, "--execute")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = spawn(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil || !bytes.Contains(out.Bytes(), []byte("Successfully started")) {
		return fmt.Errorf("kafkatest: reassign %s[%d] with ReassignPartitionsCommand: %v\n%s", topic, partition, err, out.String())
	}
	return c.WaitFor(ctx, topic, "reassigned", func(p Partition) bool {
		return p.ID != partition || (slices.Equal(p.Replicas, replicas) && p.Healthy())
	})
}
