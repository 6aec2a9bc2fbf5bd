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
