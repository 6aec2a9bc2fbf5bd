package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseLine(t *testing.T) {
	m, err := parseLine("BenchmarkProduce/broker=kfake/codec=none/size=1KB/client=kgo-2   300000   3176 ns/op   326.23 MB/s   1133 brk-cpu-ns/rec   1909 cpu-ns/rec   314890 rec/s   455 B/op   1 allocs/op")
	require.NoError(t, err)
	require.Equal(t, metrics{"ns/op": 3176, "MB/s": 326.23, "brk-cpu-ns/rec": 1133, "cpu-ns/rec": 1909, "rec/s": 314890, "B/op": 455, "allocs/op": 1}, m)
	_, err = parseLine("BenchmarkProduce/x 10 abc ns/op")
	require.Error(t, err)
	_, err = parseLine("PASS")
	require.Error(t, err)
}

func TestMedian(t *testing.T) {
	require.Equal(t, 0.0, median(nil))
	require.Equal(t, 2.0, median([]float64{3, 1, 2}))
	require.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
}

// TestWriteTable checks the ratios of medians and the per-round range.
func TestWriteTable(t *testing.T) {
	r := newResults()
	c := cell{"kfake", "gzip", "1KB", 1}
	for _, v := range [][2]float64{{300, 100}, {200, 200}, {100, 50}} {
		r.add(c.key(), "rollsafe", metrics{"rec/s": v[0], "cpu-ns/rec": 900, "brk-cpu-ns/rec": 100, "rec/batch": 990})
		r.add(c.key(), "kgo", metrics{"rec/s": v[1], "cpu-ns/rec": 1000, "brk-cpu-ns/rec": 100})
	}
	var b bytes.Buffer
	writeTable(&b, []cell{c}, []string{"rollsafe", "kgo"}, false, false, r)
	row := strings.Split(b.String(), "\n")[2]
	// medians 200 and 100: 2.00×; rounds 3.00, 1.00, 2.00; CPU 0.90× in
	// every round; kgo reports no rec/batch.
	require.Contains(t, row, "| 200 | 100 | 2.00× | 1.00–3.00 | 0.90 / 1.00 | 0.00 / 0.00 | 0.90× | 0.90–0.90 | 1.00 / 1.10 | 990 / – |")

	// With the ceiling: 400 rec/s, so rollsafe's median is 50 % of it and
	// kgo's 25 %; the kernel part of client CPU is its own column.
	for range 3 {
		r.add(c.key(), ceilingClient, metrics{"rec/s": 400})
	}
	r.runs[c.key()]["rollsafe"][0]["sys-ns/rec"] = 300
	b.Reset()
	writeTable(&b, []cell{c}, []string{"rollsafe", "kgo"}, true, false, r)
	row = strings.Split(b.String(), "\n")[2]
	require.Contains(t, row, "| 200 | 100 | 2.00× | 1.00–3.00 | 400 | 50 % / 25 % | 0.90 / 1.00 | 0.30 / 0.00 | 0.90× |")

	// With the floor: gzip alone 800 ns of rollsafe's 900 and kgo's 1000,
	// so no client compressing that way gets below 0.80× kgo's CPU, and
	// rollsafe spends 100 ns beyond it against kgo's 200: 0.50×.
	for range 3 {
		r.add(c.key(), floorClient, metrics{"cpu-ns/rec": 800})
	}
	b.Reset()
	writeTable(&b, []cell{c}, []string{"rollsafe", "kgo"}, true, true, r)
	row = strings.Split(b.String(), "\n")[2]
	require.Contains(t, row, "| 0.90× | 0.90–0.90 | 0.80 | 0.80× | 0.50× | 1.00 / 1.10 |")

	// A cell without a floor (not gzip) shows dashes.
	n := cell{"kfake", "none", "1KB", 1}
	r.add(n.key(), "rollsafe", metrics{"rec/s": 1, "cpu-ns/rec": 1})
	r.add(n.key(), "kgo", metrics{"rec/s": 1, "cpu-ns/rec": 1})
	b.Reset()
	writeTable(&b, []cell{n}, []string{"rollsafe", "kgo"}, false, true, r)
	row = strings.Split(b.String(), "\n")[2]
	require.Contains(t, row, "| 1.00× | 1.00–1.00 | – | – | – |")
}

// TestWriteStartTable checks cold over warm, the first client against the
// others, and the short-lived columns.
func TestWriteStartTable(t *testing.T) {
	r := newResults()
	c := cell{"sim", "none", "100B", 1}
	k := c.key()
	for _, v := range []float64{100, 90, 110} {
		r.add(k, "rollsafe", metrics{"rec/s": 400, "cpu-ns/rec": 300})
		r.add(k, "kgo", metrics{"rec/s": 200, "cpu-ns/rec": 400})
		r.add(k, coldSeries("rollsafe"), metrics{"rec/s": 4 * v, "cpu-ns/rec": 3 * v})
		r.add(k, coldSeries("kgo"), metrics{"rec/s": 100, "cpu-ns/rec": 600})
		r.add(k, shortSeries("rollsafe"), metrics{"ns/op": 4e6, "cpu-ns/op": 3e6, "close-ns/op": 2e5})
		r.add(k, shortSeries("kgo"), metrics{"ns/op": v * 8e4, "cpu-ns/op": 4e6, "close-ns/op": 1e6})
	}
	var b bytes.Buffer
	writeStartTable(&b, []cell{c}, []string{"rollsafe", "kgo"}, true, true, 40, r)
	lines := strings.Split(b.String(), "\n")
	require.Contains(t, lines[0], "| cold rec/s rollsafe / kgo | cold / warm rec/s rollsafe / kgo | (rounds min–max) rollsafe |")
	// Cold rollsafe: medians 400 rec/s and 300 ns, as warm (1.00×), rounds
	// 0.90-1.10; kgo cold at half its warm rate, 1.5× its CPU. rollsafe
	// cold is 4× kgo cold at 0.5× its CPU. Short-lived: 4 ms against kgo's
	// 8 ms (rounds 0.36-0.50), CPU 3 against 4 ms.
	require.Contains(t, lines[2], "| sim | none | 100B | 400 / 100 | 1.00× / 0.50× | 0.90–1.10 | 0.30 / 0.60 | 1.00× / 1.50× | 0.90–1.10 | 4.00× | 0.50× |")
	require.Contains(t, lines[2], "| 4.00 / 8.00 | 0.50× | 0.45–0.56 | 3.00 / 4.00 | 0.75× | 0.20 / 1.00 |")

	// Short-lived only: no cold columns.
	b.Reset()
	writeStartTable(&b, []cell{c}, []string{"rollsafe", "kgo"}, false, true, 40, r)
	lines = strings.Split(b.String(), "\n")
	require.NotContains(t, lines[0], "cold")
	require.Contains(t, lines[2], "| sim | none | 100B | 4.00 / 8.00 | 0.50× |")
}

func TestWriteFirstAckTable(t *testing.T) {
	r := newResults()
	for _, v := range []float64{1, 2, 3} {
		r.add(firstAckKey("kfake3"), "rollsafe", metrics{"ns/op": v * 1e6, "cpu-ns/op": 1e6, "close-ns/op": 1e5})
		r.add(firstAckKey("kfake3"), "kgo", metrics{"ns/op": 4e6, "cpu-ns/op": 2e6, "close-ns/op": 1e6})
	}
	var b bytes.Buffer
	writeFirstAckTable(&b, []string{"kfake3"}, []string{"rollsafe", "kgo"}, 100, r)
	row := strings.Split(b.String(), "\n")[2]
	require.Equal(t, "| kfake3 | 2.00 / 4.00 | 0.50× | 0.25–0.75 | 1.00 / 2.00 | 0.50× | 0.10 / 1.00 |", row)
}

// TestCellJobs checks a cell's runs in a round: the modes' benchmarks,
// their exact patterns, and the rotation from round to round.
func TestCellJobs(t *testing.T) {
	cfg := config{clients: []string{"rollsafe", "kgo"}, scale: 1, ceiling: true, floor: true,
		modes: allModes, shortOps: 40, firstOps: 100}
	js := cellJobs(cfg, cell{"sim", "gzip", "1KB", 150_000})
	var names []string
	for _, j := range js {
		names = append(names, j.bench+" "+j.series)
	}
	require.Equal(t, []string{"BenchmarkProduce rollsafe", "BenchmarkProduce kgo", "BenchmarkBrokerCeiling ceiling",
		"BenchmarkCodecFloor floor", "BenchmarkProduceCold cold:rollsafe", "BenchmarkProduceCold cold:kgo",
		"BenchmarkShortLived short:rollsafe", "BenchmarkShortLived short:kgo"}, names)
	require.Equal(t, "^BenchmarkProduceCold$/^broker=sim$/^codec=gzip$/^size=1KB$/^client=kgo$", js[5].pattern())
	require.Equal(t, 150_000, js[5].n)
	require.Equal(t, 40, js[6].n)
	require.Equal(t, "^BenchmarkCodecFloor$/^codec=gzip$/^size=1KB$", js[3].pattern())
	require.Equal(t, js[2:], rotate(js, 2)[:len(js)-2])
	require.Equal(t, js[:2], rotate(js, 2+len(js))[len(js)-2:])

	cfg.modes = []string{modeCold}
	require.Len(t, cellJobs(cfg, cell{"sim", "gzip", "1KB", 1}), 2, "no warm runs, ceiling or floor without warm")
	fa := firstAckJobs(cfg, "sim3")
	require.Equal(t, "^BenchmarkFirstAck$/^broker=sim3$/^client=rollsafe$", fa[0].pattern())
	require.Equal(t, firstAckKey("sim3"), fa[0].key)
	require.Equal(t, []string{"kfake", "kfake3", "sim", "sim3"}, selectFirstAck([]string{"kfake", "sim"}))
}
