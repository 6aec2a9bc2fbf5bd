package kafka_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
)

// TestPartitionersMatchLibrdkafka: for the default partitioner
// (consistent_random) and murmur2_random and fnv1a_random, kcat
// (librdkafka) and this package put every key on the same partition, so a
// program keeps its keys' partitions (and their order) when it migrates.
// kcat must be installed (CI installs it): without it the test fails.
func TestPartitionersMatchLibrdkafka(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	require.NoError(t, err, "kcat (librdkafka) is required: apt-get install kcat")
	const parts = 7
	var keys []string
	for i := 0; i < 200; i++ {
		keys = append(keys, fmt.Sprintf("customer-%d", i*7919))
	}
	for _, name := range []string{"consistent_random", "murmur2_random", "fnv1a_random"} {
		t.Run(name, func(t *testing.T) {
			c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("kcat", parts, 3), sim.Topic("ours", parts, 3))
			require.NoError(t, err)
			defer func() { require.NoError(t, c.Close()) }()
			bootstrap := strings.Join(c.Addrs(), ",")

			args := []string{"-P", "-b", bootstrap, "-t", "kcat", "-K", ":"}
			if name != "consistent_random" { // kcat's own default is librdkafka's
				args = append(args, "-X", "topic.partitioner="+name)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, kcat, args...)
			var input strings.Builder
			for _, k := range keys {
				input.WriteString(k + ":v\n")
			}
			cmd.Stdin = strings.NewReader(input.String())
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "kcat: %s", out)

			conf := kafka.ConfigMap{"bootstrap.servers": bootstrap}
			if name != "consistent_random" { // our default is librdkafka's too
				conf["partitioner"] = name
			}
			p, err := kafka.NewProducer(&conf)
			require.NoError(t, err)
			defer p.Close()
			topic := "ours"
			for _, k := range keys {
				require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Key: []byte(k), Value: []byte("v")}, nil))
			}
			for range keys {
				m := (<-p.Events()).(*kafka.Message)
				require.NoError(t, m.TopicPartition.Error)
			}

			where := func(topic string) map[string]int32 {
				log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
				require.NoError(t, err)
				m := map[string]int32{}
				for part, recs := range log {
					for _, r := range recs {
						m[string(r.Key)] = part
					}
				}
				require.Len(t, m, len(keys), topic)
				return m
			}
			theirs, ours := where("kcat"), where("ours")
			used := map[int32]bool{}
			for _, k := range keys {
				require.Equal(t, theirs[k], ours[k], "key %s", k)
				used[ours[k]] = true
			}
			require.Len(t, used, parts, "keys spread over every partition")
		})
	}
}
