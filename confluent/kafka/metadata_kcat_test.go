package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
)

// kcatMetadata is `kcat -L -J`'s answer: librdkafka's rd_kafka_metadata.
type kcatMetadata struct {
	Brokers []struct {
		ID   int32  `json:"id"`
		Name string `json:"name"`
	} `json:"brokers"`
	Topics []struct {
		Topic      string          `json:"topic"`
		Err        string          `json:"error"`
		Partitions []kcatPartition `json:"partitions"`
	} `json:"topics"`
}

type kcatPartition struct {
	Partition int32    `json:"partition"`
	Leader    int32    `json:"leader"`
	Err       string   `json:"error"`
	Replicas  []kcatID `json:"replicas"`
	ISRs      []kcatID `json:"isrs"`
}

type kcatID struct {
	ID int32 `json:"id"`
}

func kcatPath(t *testing.T) string {
	t.Helper()
	kcat, err := exec.LookPath("kcat")
	require.NoError(t, err, "kcat (librdkafka) is required: apt-get install kcat")
	return kcat
}

// runKcat runs kcat and returns its standard output (its log lines go to
// standard error).
func runKcat(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, kcatPath(t), args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "kcat %s: %s%s", strings.Join(args, " "), out, stderr.String())
	return string(out)
}

// requireMetadataAsKcat checks GetMetadata's answer against librdkafka's
// for the same query on the same cluster: brokers, and per topic its error
// and per partition its leader, replicas, ISR and error.
func requireMetadataAsKcat(t *testing.T, md *kafka.Metadata, bootstrap string, kcatArgs ...string) {
	t.Helper()
	var theirs kcatMetadata
	out := runKcat(t, append([]string{"-L", "-J", "-b", bootstrap}, kcatArgs...)...)
	require.NoError(t, json.Unmarshal([]byte(out), &theirs), out)

	var ours, want []string
	for _, b := range md.Brokers {
		ours = append(ours, fmt.Sprintf("%d %s", b.ID, net.JoinHostPort(b.Host, strconv.Itoa(b.Port))))
	}
	for _, b := range theirs.Brokers {
		want = append(want, fmt.Sprintf("%d %s", b.ID, b.Name))
	}
	slices.Sort(want)
	require.Equal(t, want, ours, "brokers")
	require.Contains(t, md.Brokers, md.OriginatingBroker)

	require.Len(t, md.Topics, len(theirs.Topics))
	for _, tt := range theirs.Topics {
		tm, ok := md.Topics[tt.Topic]
		require.True(t, ok, "topic %s", tt.Topic)
		require.Equal(t, tt.Topic, tm.Topic)
		if tt.Err == "" {
			require.Equal(t, kafka.ErrNoError, tm.Error.Code(), tt.Topic)
		} else {
			require.Equal(t, tt.Err, tm.Error.String(), tt.Topic)
		}
		require.Len(t, tm.Partitions, len(tt.Partitions), tt.Topic)
		slices.SortFunc(tt.Partitions, func(a, b kcatPartition) int { return int(a.Partition - b.Partition) })
		for i, tp := range tt.Partitions {
			pm := tm.Partitions[i]
			where := fmt.Sprintf("%s[%d]", tt.Topic, tp.Partition)
			require.Equal(t, tp.Partition, pm.ID, where)
			require.Equal(t, tp.Leader, pm.Leader, where)
			ids := func(list []kcatID) []int32 {
				out := []int32{}
				for _, x := range list {
					out = append(out, x.ID)
				}
				return out
			}
			require.Equal(t, ids(tp.Replicas), pm.Replicas, where+" replicas")
			require.Equal(t, ids(tp.ISRs), pm.Isrs, where+" ISR")
			if tp.Err == "" {
				require.Equal(t, kafka.ErrNoError, pm.Error.Code(), where)
			} else {
				require.Equal(t, tp.Err, pm.Error.String(), where)
			}
		}
	}
}

// kcatQuery is `kcat -Q` for distinct topic:partition:timestamp triples in
// one call: librdkafka's rd_kafka_offsets_for_times. It returns each one's
// offset, or its error text, by "topic[partition]".
func kcatQuery(t *testing.T, bootstrap string, queries ...string) map[string]kcatAnswer {
	t.Helper()
	args := []string{"-Q", "-b", bootstrap}
	for _, q := range queries {
		args = append(args, "-t", q)
	}
	out := runKcat(t, args...)
	line := regexp.MustCompile(`^(\S+) \[(-?\d+)\] offset (-?\d+)(?:: (.*))?$`)
	answers := map[string]kcatAnswer{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		m := line.FindStringSubmatch(l)
		require.NotNil(t, m, "kcat -Q printed %q", l)
		off, err := strconv.ParseInt(m[3], 10, 64)
		require.NoError(t, err)
		answers[m[1]+"["+m[2]+"]"] = kcatAnswer{off, m[4]}
	}
	require.Len(t, answers, len(queries), "kcat -Q printed %q", out)
	return answers
}

type kcatAnswer struct {
	offset int64
	err    string
}

// TestMetadataAsLibrdkafka asks GetMetadata, QueryWatermarkOffsets and
// OffsetsForTimes what librdkafka (kcat -L, kcat -Q) is asked on the same
// sim cluster, before and after a broker is killed, and requires the same
// answers: the drop-in's metadata and offset lookups are librdkafka's.
// TestOnRealKafka/metadata does the same on Apache Kafka.
func TestMetadataAsLibrdkafka(t *testing.T) {
	c := newCluster(t, 3, sim.Topic("u", 2, 2))
	bootstrap := strings.Join(c.Addrs(), ",")
	p := newProducer(t, c, nil)
	base := produceAtTimes(t, p, "t")
	t.Run("healthy", func(t *testing.T) { compareWithKcat(t, p, bootstrap, "t", base) })
	victim, _ := c.Leader("t", 0)
	require.NoError(t, c.KillBroker(victim))
	t.Run("a broker killed", func(t *testing.T) { compareWithKcat(t, p, bootstrap, "t", base) })
}

// produceAtTimes writes ten records to topic's partition 0, a second
// apart from base but for the seventh, which goes back to base + 2.5 s;
// it returns base.
func produceAtTimes(t *testing.T, p *kafka.Producer, topic string) time.Time {
	t.Helper()
	base := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	dr := make(chan kafka.Event, 1)
	for i := range 10 {
		ts := base.Add(time.Duration(i) * time.Second)
		if i == 6 {
			ts = base.Add(2500 * time.Millisecond)
		}
		require.NoError(t, p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0},
			Value:          fmt.Appendf(nil, "v%d", i), Timestamp: ts,
		}, dr))
		m := (<-dr).(*kafka.Message)
		require.NoError(t, m.TopicPartition.Error)
	}
	return base
}

// compareWithKcat asks p and kcat the same metadata and offset questions
// about topic (3 partitions, produceAtTimes's records on partition 0,
// nothing else produced by p) and requires the same answers.
func compareWithKcat(t *testing.T, p *kafka.Producer, bootstrap, topic string, base time.Time) {
	md, err := p.GetMetadata(nil, true, 5000)
	require.NoError(t, err)
	requireMetadataAsKcat(t, md, bootstrap)
	missing := "missing"
	md, err = p.GetMetadata(&missing, false, 5000)
	require.NoError(t, err)
	require.Equal(t, kafka.ErrUnknownTopicOrPart, md.Topics[missing].Error.Code())
	requireMetadataAsKcat(t, md, bootstrap, "-t", missing)
	md, err = p.GetMetadata(nil, false, 5000)
	require.NoError(t, err)
	require.Len(t, md.Topics, 1, "the topic produced to")
	requireMetadataAsKcat(t, md, bootstrap, "-t", topic)
	for part := range int32(3) {
		low, high, err := p.QueryWatermarkOffsets(topic, part, 5000)
		require.NoError(t, err)
		q := fmt.Sprintf("%s:%d:", topic, part)
		wantLow := kcatQuery(t, bootstrap, q+"-2")[fmt.Sprintf("%s[%d]", topic, part)]
		wantHigh := kcatQuery(t, bootstrap, q+"-1")[fmt.Sprintf("%s[%d]", topic, part)]
		require.Empty(t, wantLow.err+wantHigh.err)
		require.Equal(t, [2]int64{wantLow.offset, wantHigh.offset}, [2]int64{low, high}, "%s[%d] watermarks", topic, part)
	}
	_, high, err := p.QueryWatermarkOffsets(topic, 0, 5000)
	require.NoError(t, err)
	require.Equal(t, int64(10), high)

	// Timestamps on t[0], one kcat call each (it answers one
	// query per partition); then t[1] (empty), a missing topic and
	// a missing partition together.
	stamps := []int64{
		0, base.UnixMilli() - 1, base.UnixMilli(), base.Add(2400 * time.Millisecond).UnixMilli(),
		base.Add(2500 * time.Millisecond).UnixMilli(), base.Add(3 * time.Second).UnixMilli(),
		base.Add(9 * time.Second).UnixMilli(), base.Add(9001 * time.Millisecond).UnixMilli(),
		int64(kafka.OffsetEnd), int64(kafka.OffsetBeginning),
	}
	var times []kafka.TopicPartition
	var want []kcatAnswer
	for _, ts := range stamps {
		times = append(times, kafka.TopicPartition{Topic: &topic, Partition: 0, Offset: kafka.Offset(ts)})
		want = append(want, kcatQuery(t, bootstrap, fmt.Sprintf("%s:0:%d", topic, ts))[topic+"[0]"])
	}
	mixed := kcatQuery(t, bootstrap, topic+":1:0", missing+":0:0", topic+":7:0")
	times = append(times,
		kafka.TopicPartition{Topic: &topic, Partition: 1, Offset: 0},
		kafka.TopicPartition{Topic: &missing, Partition: 0, Offset: 0},
		kafka.TopicPartition{Topic: &topic, Partition: 7, Offset: 0})
	want = append(want, mixed[topic+"[1]"], mixed[missing+"[0]"], mixed[topic+"[7]"])
	got, err := p.OffsetsForTimes(times, 10000)
	require.NoError(t, err)
	require.Len(t, got, len(times))
	for i, w := range want {
		where := times[i].String()
		require.Equal(t, *times[i].Topic, *got[i].Topic, where)
		require.Equal(t, times[i].Partition, got[i].Partition, where)
		if w.err != "" {
			require.Error(t, got[i].Error, where)
			require.Equal(t, w.err, got[i].Error.(kafka.Error).Code().String(), where)
			continue
		}
		require.NoError(t, got[i].Error, where)
		require.Equal(t, w.offset, int64(got[i].Offset), where)
	}
	require.Equal(t, int64(3), want[4].offset, "the fixture as intended: 2.5 s finds offset 3 (3 s) before offset 6 (2.5 s)")
	require.Equal(t, int64(-1), want[7].offset, "the fixture as intended: nothing after 9 s")
}

// TestMetadataCallErrors: timeouts when no broker answers, ErrState after
// Close, ErrInvalidArg for a negative timestamp that is no logical offset.
func TestMetadataCallErrors(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, nil)
	topic := "t"
	got, err := p.OffsetsForTimes([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: -7}}, 5000)
	require.NoError(t, err)
	require.Equal(t, kafka.ErrInvalidArg, got[0].Error.(kafka.Error).Code())
	require.Equal(t, kafka.OffsetInvalid, got[0].Offset)

	for id := range int32(3) {
		require.NoError(t, c.KillBroker(id))
	}
	start := time.Now()
	_, err = p.GetMetadata(&topic, false, 300)
	require.Equal(t, kafka.ErrTransport, err.(kafka.Error).Code(), "%v", err)
	unreachable := []kafka.ErrorCode{kafka.ErrAllBrokersDown, kafka.ErrTimedOut}
	_, _, err = p.QueryWatermarkOffsets(topic, 0, 300)
	require.Contains(t, unreachable, err.(kafka.Error).Code(), "%v", err)
	got, err = p.OffsetsForTimes([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: 0}}, 300)
	require.Contains(t, unreachable, err.(kafka.Error).Code(), "%v", err)
	require.Contains(t, unreachable, got[0].Error.(kafka.Error).Code())
	require.Less(t, time.Since(start), 3*time.Second, "calls outlived their timeouts")

	// A broker that accepts connections and never answers: librdkafka
	// (kcat -L, kcat -Q) gives up on it with the same codes.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, conn)
		}
	}()
	kcatFails := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, kcatPath(t), append([]string{"-b", ln.Addr().String(), "-m", "1"}, args...)...).CombinedOutput()
		require.Error(t, err, "kcat %v succeeded against a silent broker: %s", args, out)
		m := regexp.MustCompile(`% ERROR: [^:]+: (Local: [^(\n]*[^ (\n])`).FindSubmatch(out)
		require.NotNil(t, m, "%s", out)
		return string(m[1])
	}
	silent, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": ln.Addr().String()})
	require.NoError(t, err)
	defer silent.Close()
	start = time.Now()
	_, err = silent.GetMetadata(nil, true, 1000)
	took := time.Since(start)
	require.Equal(t, kcatFails("-L"), err.(kafka.Error).Code().String(), "%v", err)
	require.Less(t, took, 3*time.Second, "GetMetadata outlived its timeout")
	start = time.Now()
	_, _, err = silent.QueryWatermarkOffsets(topic, 0, 1000)
	took = time.Since(start)
	require.Equal(t, kcatFails("-Q", "-t", topic+":0:0"), err.(kafka.Error).Code().String(), "%v", err)
	require.Less(t, took, 3*time.Second, "QueryWatermarkOffsets outlived its timeout")

	p.Close()
	_, err = p.GetMetadata(&topic, false, 300)
	require.Equal(t, kafka.ErrState, err.(kafka.Error).Code(), "%v", err)
	_, _, err = p.QueryWatermarkOffsets(topic, 0, 300)
	require.Equal(t, kafka.ErrState, err.(kafka.Error).Code(), "%v", err)
}
