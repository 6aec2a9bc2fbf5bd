package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

// produceSummary is the JSON line `rollsafe produce` ends its output with.
type produceSummary struct {
	Sent           int64   `json:"sent"`
	Acked          int64   `json:"acked"`
	Failed         int64   `json:"failed"`
	Retries        int64   `json:"retries"`
	EpochBumps     int64   `json:"epoch_bumps"`
	TailReads      int64   `json:"tail_reads"`
	DataLossEvents int64   `json:"data_loss_events"`
	Seconds        float64 `json:"seconds"`
}

// countingHooks counts the producer's recovery work for the summaries of
// produce and demo.
type countingHooks struct {
	client.NopHooks
	retries, bumps, tails, losses atomic.Int64
}

func (h *countingHooks) BatchSent(_ string, _ int32, _ int32, _ int, _ int, retry bool) {
	if retry {
		h.retries.Add(1)
	}
}
func (h *countingHooks) EpochBumped(string, int32, int64, int16) { h.bumps.Add(1) }
func (h *countingHooks) TailRead(string, int32, int64)           { h.tails.Add(1) }
func (h *countingHooks) DataLossDetected(client.DataLoss)        { h.losses.Add(1) }

// runProduce implements `rollsafe produce`; it returns the exit code.
func runProduce(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("produce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brokers := fs.String("brokers", "", "bootstrap brokers, host:port[,host:port...] (required)")
	topic := fs.String("topic", "", "topic to produce to (required)")
	partition := fs.Int("partition", -1, "partition to produce to (default: murmur2 of the key, or sticky)")
	keyDelim := fs.String("key-delim", "", "split each line into key<delim>value at the first delimiter")
	codecName := fs.String("compression", "gzip", "gzip|snappy|lz4|zstd|none")
	linger := fs.Duration("linger", 5*time.Millisecond, "how long a batch waits for more records")
	acks := fs.String("acks", "all", "all|1|0 (anything but all disables idempotence)")
	timeout := fs.Duration("delivery-timeout", 2*time.Minute, "delivery timeout per record")
	sec := addSecurityFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rollsafe produce -brokers host:port[,...] -topic T [flags] < lines")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	usage := func(msg string) int {
		fmt.Fprintln(stderr, "rollsafe produce:", msg)
		fs.Usage()
		return 2
	}
	if *brokers == "" || *topic == "" || fs.NArg() != 0 {
		return usage("-brokers and -topic are required, and no positional arguments")
	}
	codec, err := compress.ParseCodec(*codecName)
	if err != nil {
		return usage(err.Error())
	}
	hooks := &countingHooks{}
	opts := []client.Option{
		client.Brokers(strings.Split(*brokers, ",")...),
		client.Compression(codec, compress.DefaultLevel),
		client.Linger(*linger),
		client.DeliveryTimeout(*timeout),
		client.WithHooks(hooks),
	}
	switch *acks {
	case "all", "-1":
	case "1", "0":
		n, _ := strconv.Atoi(*acks)
		opts = append(opts, client.Acks(int16(n)), client.DisableIdempotence())
	default:
		return usage(fmt.Sprintf("-acks %q: want all, 1 or 0", *acks))
	}
	secOpts, err := sec.options(os.LookupEnv)
	if err != nil {
		return usage(err.Error())
	}
	opts = append(opts, secOpts...)
	p, err := client.NewProducer(opts...)
	if err != nil {
		return usage(err.Error())
	}
	start := time.Now()
	var sum produceSummary
	var mu sync.Mutex // guards stderr writes and sum.Failed/Acked
	done := func(r *client.Record, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			sum.Failed++
			fmt.Fprintf(stderr, "failed %s: %v\n", r.Value, err)
			return
		}
		sum.Acked++
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		rec := &client.Record{Topic: *topic, Value: []byte(line)}
		if *keyDelim != "" {
			if k, v, ok := strings.Cut(line, *keyDelim); ok {
				rec.Key, rec.Value = []byte(k), []byte(v)
			}
		}
		if *partition >= 0 {
			rec.Partition, rec.HasPartition = int32(*partition), true
		}
		sum.Sent++
		p.Produce(ctx, rec, done)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "rollsafe produce: reading stdin:", err)
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), *timeout+10*time.Second)
	defer cancel()
	if err := p.Close(closeCtx); err != nil {
		fmt.Fprintln(stderr, "rollsafe produce: close:", err)
	}
	mu.Lock()
	defer mu.Unlock()
	sum.Retries, sum.EpochBumps = hooks.retries.Load(), hooks.bumps.Load()
	sum.TailReads, sum.DataLossEvents = hooks.tails.Load(), hooks.losses.Load()
	sum.Seconds = time.Since(start).Seconds()
	line, _ := json.Marshal(sum)
	fmt.Fprintln(stdout, string(line))
	if sum.Acked != sum.Sent {
		return 1
	}
	return 0
}
