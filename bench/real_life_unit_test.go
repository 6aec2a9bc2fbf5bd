package bench

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// TestLifeLines: a lifecycle's line reads back the same; other lines are
// skipped, malformed life lines refused.
func TestLifeLines(t *testing.T) {
	r := lifeRun{firstAck: 1500 * time.Microsecond, lastAck: 12 * time.Millisecond, close: 300 * time.Microsecond,
		cpuAck: 9 * time.Millisecond, cpuClose: 10 * time.Millisecond, acked: 1000}
	runs, err := parseLifeLines("version kafka-clients 4.4.0\nlog something\n" + r.String() + "\n" + r.String() + "\n")
	require.NoError(t, err)
	require.Equal(t, []lifeRun{r, r}, runs)
	for _, bad := range []string{"life 1 2 3", "life 1 2 3 4 5 6 x", "life 1 2 -3 4 5 6 7", "life a 2 3 4 5 6 7"} {
		_, err := parseLifeLines(bad + "\n")
		require.ErrorIs(t, err, errBadLifeLine, bad)
	}
	_, err = checkLifeRuns("x", "", r.String()+"\n", 1000, 2)
	require.ErrorContains(t, err, "1 lifecycles reported, want 2")
	_, err = checkLifeRuns("x", "", r.String()+"\n", 999, 1)
	require.ErrorContains(t, err, "1000 acknowledged")
}

func TestGoLifeSpec(t *testing.T) {
	want := goLifeSpec{goThroughputSpec{client: "kgo", addrs: []string{"127.0.0.1:9092"},
		cell: throughputCell{codec: compress.Zstd, size: fixture.Small, count: 1000}}, 21}
	got, err := parseGoLifeSpec(want.String())
	require.NoError(t, err)
	require.Equal(t, want.client, got.client)
	require.Equal(t, want.addrs, got.addrs)
	require.Equal(t, want.cell.codec, got.cell.codec)
	require.Equal(t, want.cell.count, got.cell.count)
	require.Equal(t, 21, got.lifecycles)
	for _, bad := range []string{"", "kgo|a:1|zstd|100|1000", "kgo|a:1|zstd|100|1000|0", "kgo|a:1|zstd|100|1000|x"} {
		_, err := parseGoLifeSpec(bad)
		require.ErrorIs(t, err, errBadGoChild, bad)
	}
}

func TestStartModes(t *testing.T) {
	m, err := parseStartModes("cold,first", 3)
	require.NoError(t, err)
	require.Equal(t, startModes{cold: true, first: true, lifecycles: 3}, m)
	_, err = parseStartModes("warm,hot", 3)
	require.ErrorIs(t, err, errBadModes)
	_, err = parseStartModes("warm", 0)
	require.ErrorIs(t, err, errBadModes)
}

// TestStartTable: the first lifecycle apart, the later ones' mean, medians
// over the rounds, cold over warm and over kgo.
func TestStartTable(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	s := summarizeLife([]lifeRun{{firstAck: ms(50), lastAck: ms(60)}, {firstAck: ms(1), lastAck: ms(4), cpuClose: ms(3)},
		{firstAck: ms(3), lastAck: ms(6), cpuClose: ms(5), close: ms(1)}})
	require.Equal(t, ms(50), s.fresh.firstAck)
	require.Equal(t, lifeRun{firstAck: ms(2), lastAck: ms(5), cpuClose: ms(4), close: ms(0.5)}, *s.later)
	require.Nil(t, summarizeLife([]lifeRun{{}}).later)

	cell := throughputCell{codec: compress.None, size: fixture.Small, count: 100_000}
	c := cell.String()
	warm := map[string][]throughputRun{
		c + "/rollsafe": {{elapsed: ms(100), cpu: ms(50)}},
		c + "/kgo":      {{elapsed: ms(200), cpu: ms(80)}},
	}
	life := map[string][]lifeSummary{}
	for _, v := range []float64{90, 100, 300} { // rollsafe cold: 100 ms median, as warm
		life[startKey(c, "rollsafe", "cold")] = append(life[startKey(c, "rollsafe", "cold")], lifeSummary{fresh: lifeRun{lastAck: ms(v), cpuAck: ms(55)}})
		life[startKey(c, "kgo", "cold")] = append(life[startKey(c, "kgo", "cold")], lifeSummary{fresh: lifeRun{lastAck: ms(400), cpuAck: ms(110)}})
		life[startKey(c, "rollsafe", "short")] = append(life[startKey(c, "rollsafe", "short")], s)
		life[startKey(c, "kgo", "short")] = append(life[startKey(c, "kgo", "short")], lifeSummary{fresh: lifeRun{lastAck: ms(80)},
			later: &lifeRun{lastAck: ms(10), cpuClose: ms(8), close: ms(2)}})
		life[startKey("", "rollsafe", "first")] = append(life[startKey("", "rollsafe", "first")], s)
		life[startKey("", "kgo", "first")] = append(life[startKey("", "kgo", "first")], lifeSummary{fresh: lifeRun{firstAck: ms(70)},
			later: &lifeRun{firstAck: ms(4), cpuClose: ms(2)}})
	}
	out := startTable([]throughputCell{cell}, []string{"rollsafe", "kgo", "ceiling"},
		startModes{cold: true, short: true, first: true, lifecycles: 2}, warm, life, 3)
	lines := strings.Split(out, "\n")
	// rollsafe cold: 1000k rec/s (as warm: 1.00×), 0.055 CPU s per 100k
	// (1.10× warm's 0.050), 4× kgo cold at 0.50× its CPU; short-lived:
	// 60 ms fresh, 5 ms later (0.50× kgo's 10), CPU 4 ms (0.50×).
	require.Equal(t, "| none 100B | rollsafe | 1000k | 1.00× | 0.055 | 1.10× | 4.00× | 0.50× | 60.00 | 5.00 | 0.50× | 4.00 | 0.50× | 0.50 |", lines[2])
	require.Equal(t, "| none 100B | kgo | 250k | 0.50× | 0.110 | 1.38× | – | – | 80.00 | 10.00 | – | 8.00 | – | 2.00 |", lines[3])
	require.NotContains(t, out, "| ceiling |")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| rollsafe | 50.00") })
	require.GreaterOrEqual(t, i, 0, out)
	require.Equal(t, "| rollsafe | 50.00 | 2.00 | 0.50× | 4.00 | 2.00× | 0.50 |", lines[i])
}

// TestLifeChildrenOnSim runs every producer's life child — the Go clients
// in this test binary, the Java and Python peers where they are set up —
// against the sim in a child process: the real-broker table's plumbing
// for producers from their start, checked without a Kafka broker.
func TestLifeChildrenOnSim(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Java and Python peers")
	}
	bp, err := startBrokerProc(brokerSpec{"sim", 1})
	require.NoError(t, err)
	defer func() { require.NoError(t, bp.stop()) }()
	data := filepath.Join(t.TempDir(), "events.bin")
	require.NoError(t, writeEvents(data, eventRing(fixture.Small)))
	cell := throughputCell{codec: compress.Gzip, size: fixture.Small, count: 50, data: data}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	python := "librdkafka"
	if _, _, err := pythonCmd(false); err != nil {
		python = "librdkafka-debian" // Debian's binding, where the PyPI venv is not set up
	}
	for _, name := range []string{"rollsafe", "kgo", "sarama", "java", python} {
		t.Run(name, func(t *testing.T) {
			var runs []lifeRun
			var err error
			switch name {
			case "rollsafe", "kgo", "sarama":
				runs, err = runGoLifeChild(ctx, bp.addrs, name, cell, 2)
			default:
				if _, _, _, perr := peerCmd(name, cell.codec); perr != nil {
					requirePeer(t, name, perr)
				}
				runs, err = runPeerLifeChild(ctx, bp.addrs, name, cell, 2)
			}
			require.NoError(t, err)
			require.Len(t, runs, 2)
			for _, r := range runs {
				t.Log(r)
				require.Positive(t, r.firstAck)
				require.LessOrEqual(t, r.firstAck, r.lastAck)
				require.Positive(t, r.cpuClose)
			}
		})
	}
}
