package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// cell is one row of the table: a BenchmarkProduce cell and how many
// records each run of it produces.
type cell struct {
	broker  string // benchmark broker name: kfake, sim, kfake3, sim3
	codec   string
	size    string
	records int
}

func (c cell) key() string { return c.broker + "/" + c.codec + "/" + c.size }

// issueCells are the table's cells for one broker kind; the record counts
// make each run last about a second on a loaded 2-core machine.
func issueCells(kind string) []cell {
	return []cell{
		{kind, "none", "100B", 1_000_000},
		{kind, "none", "1KB", 400_000},
		{kind, "gzip", "100B", 500_000},
		{kind, "gzip", "1KB", 150_000},
		{kind + "3", "gzip", "1KB", 150_000},
		{kind, "zstd", "1KB", 200_000},
	}
}

func selectCells(kinds []string) []cell {
	var cs []cell
	for _, k := range kinds {
		cs = append(cs, issueCells(k)...)
	}
	return cs
}

// metrics is one benchmark line's values by unit (ns/op, rec/s,
// cpu-ns/rec, brk-cpu-ns/rec, B/op, allocs/op, ...).
type metrics map[string]float64

// parseLine parses a `go test -bench` result line:
// name, iterations, then value-unit pairs.
func parseLine(l string) (metrics, error) {
	f := strings.Fields(l)
	if len(f) < 4 || len(f)%2 != 0 {
		return nil, fmt.Errorf("not a benchmark line: %q", l)
	}
	m := metrics{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil, fmt.Errorf("benchmark line %q: %w", l, err)
		}
		m[f[i+1]] = v
	}
	return m, nil
}

// results holds every run's metrics by cell key and client.
type results struct {
	runs map[string]map[string][]metrics
}

func newResults() *results { return &results{runs: map[string]map[string][]metrics{}} }

func (r *results) add(cell, client string, m metrics) {
	if r.runs[cell] == nil {
		r.runs[cell] = map[string][]metrics{}
	}
	r.runs[cell][client] = append(r.runs[cell][client], m)
}

// median is the median of unit over a cell's runs of client (NaN-free: 0
// if there are none).
func (r *results) median(cell, client, unit string) float64 {
	var vs []float64
	for _, m := range r.runs[cell][client] {
		if v, ok := m[unit]; ok {
			vs = append(vs, v)
		}
	}
	return median(vs)
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// roundRatios is, per round, a's unit over b's (runs are in round order).
func (r *results) roundRatios(cell, a, b, unit string) []float64 {
	ra, rb := r.runs[cell][a], r.runs[cell][b]
	var out []float64
	for i := range min(len(ra), len(rb)) {
		if rb[i][unit] != 0 {
			out = append(out, ra[i][unit]/rb[i][unit])
		}
	}
	return out
}

func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

func rate(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// us is nanoseconds as microseconds with two decimals (CPU s per 100k
// records is the same number divided by 10).
func us(ns float64) string { return fmt.Sprintf("%.2f", ns/1e3) }

// span is "min–max" of vs, or "–".
func span(vs []float64) string {
	if len(vs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f–%.2f", slices.Min(vs), slices.Max(vs))
}

// percent is a over b as a whole percentage, or "–".
func percent(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", 100*a/b)
}

// count is a median count, or "–" for a client that does not report it.
func count(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

func joined(vs []string) string { return strings.Join(vs, " / ") }

// writeTable prints the markdown table: throughput, CPU per record
// (client process, its kernel part, and client plus broker), memory per
// record; the first client against each other one; with ceiling, the
// broker's ceiling (BenchmarkBrokerCeiling) and each client's share of it;
// with floor, in gzip cells, the compressor's own CPU per record
// (BenchmarkCodecFloor), the least CPU ratio to each other client that any
// client compressing the same way could reach, and the first client's CPU
// beyond the compressor's against each other one's.
func writeTable(w io.Writer, cs []cell, clients []string, ceiling, floor bool, r *results) {
	first, others := clients[0], clients[1:]
	hdr := []string{"broker", "codec", "size"}
	for _, c := range clients {
		hdr = append(hdr, c+" rec/s")
	}
	for _, o := range others {
		hdr = append(hdr, first+"/"+o+" rec/s", "(rounds min–max)")
	}
	if ceiling {
		hdr = append(hdr, "ceiling rec/s", "share of ceiling "+joined(clients))
	}
	hdr = append(hdr, "client CPU µs/rec "+joined(clients), "of it kernel "+joined(clients))
	for _, o := range others {
		hdr = append(hdr, "CPU "+first+"/"+o, "(rounds min–max)")
	}
	if floor {
		hdr = append(hdr, "gzip alone µs/rec")
		for _, o := range others {
			hdr = append(hdr, "gzip alone / "+o+" CPU", "CPU beyond gzip "+first+"/"+o)
		}
	}
	hdr = append(hdr, "CPU incl. broker µs/rec "+joined(clients), "rec/batch "+joined(clients), "B/op "+joined(clients), "allocs/op "+joined(clients))
	fmt.Fprintln(w, "| "+strings.Join(hdr, " | ")+" |")
	sep := make([]string, len(hdr))
	for i := range sep {
		sep[i] = "---"
		if i >= 3 {
			sep[i] = "---:"
		}
	}
	fmt.Fprintln(w, "|"+strings.Join(sep, "|")+"|")
	for _, c := range cs {
		k := c.key()
		row := []string{c.broker, c.codec, c.size}
		for _, cl := range clients {
			row = append(row, rate(r.median(k, cl, "rec/s")))
		}
		for _, o := range others {
			rr := r.roundRatios(k, first, o, "rec/s")
			row = append(row, ratio(r.median(k, first, "rec/s"), r.median(k, o, "rec/s")), span(rr))
		}
		if ceiling {
			top := r.median(k, ceilingClient, "rec/s")
			var share []string
			for _, cl := range clients {
				share = append(share, percent(r.median(k, cl, "rec/s"), top))
			}
			row = append(row, rate(top), joined(share))
		}
		var cpu, kernel, tot, perBatch, bop, allocs []string
		for _, cl := range clients {
			cpu = append(cpu, us(r.median(k, cl, "cpu-ns/rec")))
			kernel = append(kernel, us(r.median(k, cl, "sys-ns/rec")))
			tot = append(tot, us(r.median(k, cl, "cpu-ns/rec")+r.median(k, cl, "brk-cpu-ns/rec")))
			perBatch = append(perBatch, count(r.median(k, cl, "rec/batch")))
			bop = append(bop, fmt.Sprintf("%.0f", r.median(k, cl, "B/op")))
			allocs = append(allocs, fmt.Sprintf("%.0f", r.median(k, cl, "allocs/op")))
		}
		row = append(row, joined(cpu), joined(kernel))
		for _, o := range others {
			row = append(row, ratio(r.median(k, first, "cpu-ns/rec"), r.median(k, o, "cpu-ns/rec")),
				span(r.roundRatios(k, first, o, "cpu-ns/rec")))
		}
		if floor {
			row = append(row, floorColumns(r, k, first, others)...)
		}
		row = append(row, joined(tot), joined(perBatch), joined(bop), joined(allocs))
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "rec/s, CPU and memory are medians over the rounds; ratios are of medians. Client CPU is getrusage of the benchmark process (every thread) per record; \"incl. broker\" adds the broker child's (/proc, 10 ms ticks). µs/rec × 0.1 = CPU s per 100k records. Kernel: the system part of client CPU (mostly the socket writes). rec/batch: records per batch the broker acknowledged, from the client's own hooks (– for a client without them).\n")
	if ceiling {
		fmt.Fprintf(w, "\nCeiling: BenchmarkBrokerCeiling, the same broker child taking the cell's records as pre-encoded batches (one ~1 MiB batch per partition per request, five requests in flight per broker) from a client that does nothing per record but write them; share of ceiling is a client's rec/s over it. No client can exceed the ceiling, so where the reference client is at s of it, no client can be more than 1/s times as fast.\n")
	}
	if floor {
		fmt.Fprintf(w, "\ngzip alone: BenchmarkCodecFloor, klauspost's gzip writer at the default level (both Go clients' level) compressing the cell's records as full 1 MiB record sections on one goroutine, CPU per record. A client compressing that way spends at least this much, so \"gzip alone / kgo CPU\" is the lowest CPU ratio to kgo any such client can reach; \"CPU beyond gzip\" compares what the clients spend besides the compressor's own work (client CPU minus gzip alone).\n")
	}
}

// floorColumns are a gzip cell's floor columns: gzip alone, and for each
// other client gzip alone over its CPU and the first client's CPU beyond
// gzip alone over its; "–" where there is no floor.
func floorColumns(r *results, k, first string, others []string) []string {
	fl := r.median(k, floorClient, "cpu-ns/rec")
	if fl == 0 {
		cols := []string{"–"}
		for range others {
			cols = append(cols, "–", "–")
		}
		return cols
	}
	cols := []string{us(fl)}
	a := r.median(k, first, "cpu-ns/rec")
	for _, o := range others {
		b := r.median(k, o, "cpu-ns/rec")
		beyond := "–"
		if b > fl && a >= fl {
			beyond = ratio(a-fl, b-fl)
		}
		cols = append(cols, ratio(fl, b), beyond)
	}
	return cols
}

// coldSeries and shortSeries name a client's BenchmarkProduceCold and
// BenchmarkShortLived runs in a cell's results.
func coldSeries(client string) string  { return "cold:" + client }
func shortSeries(client string) string { return "short:" + client }

// firstAckKey is the results key of a BenchmarkFirstAck cluster.
func firstAckKey(broker string) string { return "first/" + broker }

// selectFirstAck are BenchmarkFirstAck's clusters of the given kinds: one
// broker and three.
func selectFirstAck(kinds []string) []string {
	var bs []string
	for _, k := range kinds {
		bs = append(bs, k, k+"3")
	}
	return bs
}

// ms is nanoseconds as milliseconds with two decimals.
func ms(ns float64) string { return fmt.Sprintf("%.2f", ns/1e6) }

// ratios is ratio(a, b) of each pair.
func ratios(as, bs []float64) string {
	var out []string
	for i := range as {
		out = append(out, ratio(as[i], bs[i]))
	}
	return joined(out)
}

// header prints a markdown table's header row and separator, the first
// left columns left-aligned.
func header(w io.Writer, hdr []string, left int) {
	fmt.Fprintln(w, "| "+strings.Join(hdr, " | ")+" |")
	sep := make([]string, len(hdr))
	for i := range sep {
		sep[i] = "---"
		if i >= left {
			sep[i] = "---:"
		}
	}
	fmt.Fprintln(w, "|"+strings.Join(sep, "|")+"|")
}

// writeStartTable prints the table of producers from their start, in the
// warm table's cells: with cold, each client's rec/s and CPU per record
// with no warm-up (BenchmarkProduceCold) and over its warm figures
// (BenchmarkProduce); with short, each client's short-lived lifecycle
// (BenchmarkShortLived): the time to the last acknowledgement, the CPU
// and Close's time; the first client against each other one.
func writeStartTable(w io.Writer, cs []cell, clients []string, cold, short bool, shortOps int, r *results) {
	first, others := clients[0], clients[1:]
	hdr := []string{"broker", "codec", "size"}
	if cold {
		hdr = append(hdr, "cold rec/s "+joined(clients), "cold / warm rec/s "+joined(clients), "(rounds min–max) "+first,
			"cold CPU µs/rec "+joined(clients), "cold / warm CPU "+joined(clients), "(rounds min–max) "+first)
		for _, o := range others {
			hdr = append(hdr, "cold "+first+"/"+o+" rec/s", "cold CPU "+first+"/"+o)
		}
	}
	if short {
		hdr = append(hdr, "short-lived ms to last ack "+joined(clients))
		for _, o := range others {
			hdr = append(hdr, first+"/"+o, "(rounds min–max)")
		}
		hdr = append(hdr, "short-lived CPU ms "+joined(clients))
		for _, o := range others {
			hdr = append(hdr, "CPU "+first+"/"+o)
		}
		hdr = append(hdr, "Close ms "+joined(clients))
	}
	header(w, hdr, 3)
	for _, c := range cs {
		k := c.key()
		row := []string{c.broker, c.codec, c.size}
		med := func(series, unit string) float64 { return r.median(k, series, unit) }
		if cold {
			var coldRPS, coldCPU, warmRPS, warmCPU []float64
			var rpsCol, cpuCol []string
			for _, cl := range clients {
				coldRPS = append(coldRPS, med(coldSeries(cl), "rec/s"))
				coldCPU = append(coldCPU, med(coldSeries(cl), "cpu-ns/rec"))
				warmRPS = append(warmRPS, med(cl, "rec/s"))
				warmCPU = append(warmCPU, med(cl, "cpu-ns/rec"))
				rpsCol = append(rpsCol, rate(coldRPS[len(coldRPS)-1]))
				cpuCol = append(cpuCol, us(coldCPU[len(coldCPU)-1]))
			}
			row = append(row, joined(rpsCol), ratios(coldRPS, warmRPS), span(r.roundRatios(k, coldSeries(first), first, "rec/s")),
				joined(cpuCol), ratios(coldCPU, warmCPU), span(r.roundRatios(k, coldSeries(first), first, "cpu-ns/rec")))
			for i := range others {
				row = append(row, ratio(coldRPS[0], coldRPS[i+1]), ratio(coldCPU[0], coldCPU[i+1]))
			}
		}
		if short {
			var toAck, cpu, closing []string
			for _, cl := range clients {
				toAck = append(toAck, ms(med(shortSeries(cl), "ns/op")))
				cpu = append(cpu, ms(med(shortSeries(cl), "cpu-ns/op")))
				closing = append(closing, ms(med(shortSeries(cl), "close-ns/op")))
			}
			row = append(row, joined(toAck))
			for _, o := range others {
				row = append(row, ratio(med(shortSeries(first), "ns/op"), med(shortSeries(o), "ns/op")),
					span(r.roundRatios(k, shortSeries(first), shortSeries(o), "ns/op")))
			}
			row = append(row, joined(cpu))
			for _, o := range others {
				row = append(row, ratio(med(shortSeries(first), "cpu-ns/op"), med(shortSeries(o), "cpu-ns/op")))
			}
			row = append(row, joined(closing))
		}
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintln(w)
	if cold {
		fmt.Fprintf(w, "Cold: BenchmarkProduceCold, the cell's records produced by a client created inside the timed part, no warm-up: the time and the process's CPU from before NewProducer (kgo: NewClient, sarama: NewAsyncProducer) to the last record's outcome, Close not timed; cold / warm is over the first table's BenchmarkProduce figures of the same cell (medians of each), the rounds' range from each round's pair of runs.\n")
	}
	if short {
		fmt.Fprintf(w, "\nShort-lived: BenchmarkShortLived, %d lifecycles per run, each creating the client, producing 1,000 of the cell's records, waiting for every outcome (a flush) and closing it: ms to last ack is the mean time from before the client's creation to the last acknowledgement, CPU the process's per lifecycle, Close included; Close ms the mean time Close took after the last acknowledgement.\n", shortOps)
	}
}

// writeFirstAckTable prints BenchmarkFirstAck's table: per cluster, each
// client's time from before its creation to its first record's
// acknowledgement, its CPU per lifecycle and Close's time.
func writeFirstAckTable(w io.Writer, brokers []string, clients []string, ops int, r *results) {
	first, others := clients[0], clients[1:]
	hdr := []string{"broker", "ms to first ack " + joined(clients)}
	for _, o := range others {
		hdr = append(hdr, first+"/"+o, "(rounds min–max)")
	}
	hdr = append(hdr, "CPU ms per lifecycle "+joined(clients))
	for _, o := range others {
		hdr = append(hdr, "CPU "+first+"/"+o)
	}
	hdr = append(hdr, "Close ms "+joined(clients))
	header(w, hdr, 1)
	for _, b := range brokers {
		k := firstAckKey(b)
		var toAck, cpu, closing []string
		for _, cl := range clients {
			toAck = append(toAck, ms(r.median(k, cl, "ns/op")))
			cpu = append(cpu, ms(r.median(k, cl, "cpu-ns/op")))
			closing = append(closing, ms(r.median(k, cl, "close-ns/op")))
		}
		row := []string{b, joined(toAck)}
		for _, o := range others {
			row = append(row, ratio(r.median(k, first, "ns/op"), r.median(k, o, "ns/op")), span(r.roundRatios(k, first, o, "ns/op")))
		}
		row = append(row, joined(cpu))
		for _, o := range others {
			row = append(row, ratio(r.median(k, first, "cpu-ns/op"), r.median(k, o, "cpu-ns/op")))
		}
		row = append(row, joined(closing))
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "First ack: BenchmarkFirstAck, %d lifecycles per run, each creating the client, producing one 100 B record (uncompressed), waiting for its outcome (a flush: no client lingers) and closing it: ms to first ack is the mean time from before the client's creation to the acknowledgement (connections, metadata, producer id and the produce request); CPU the process's per lifecycle, Close included. kfake3 and sim3: three brokers, the topic's partitions spread over them.\n", ops)
}
