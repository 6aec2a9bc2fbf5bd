// Command quickstart produces ten keyed records with rollsafe and prints
// where each one landed, or what is known about a record that did not.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/rollsafe/rollsafe/client"
)

func main() {
	brokers := flag.String("brokers", "localhost:9092", "bootstrap brokers, host:port[,host:port...]")
	topic := flag.String("topic", "orders", "topic to produce to")
	flag.Parse()
	ctx := context.Background()

	p, err := client.NewProducer(client.Brokers(strings.Split(*brokers, ",")...))
	if err != nil {
		log.Fatal(err) // errors.Is(err, client.ErrInvalidConfig), naming the option
	}
	defer p.Close(ctx) // drains what is buffered, bounded by ctx

	for i := range 10 {
		rec := &client.Record{
			Topic: *topic,
			Key:   fmt.Appendf(nil, "customer-%d", i),
			Value: fmt.Appendf(nil, `{"order":%d}`, i),
		}
		p.Produce(ctx, rec, func(r *client.Record, err error) {
			switch {
			case err == nil:
				fmt.Printf("%s at partition %d, offset %d\n", r.Key, r.Partition, r.Offset)
			case errors.Is(err, client.ErrNotWritten):
				fmt.Printf("%s not written, safe to send again: %v\n", r.Key, err)
			default: // errors.Is(err, client.ErrOutcomeUnknown)
				fmt.Printf("%s may be in the log: %v\n", r.Key, err)
			}
		})
	}
	if err := p.Flush(ctx); err != nil { // waits for every callback
		log.Print(err)
	}
}
