package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/rollsafe/rollsafe/client"
)

// A transaction writes records to several partitions at once: a
// read_committed consumer sees all of them after CommitTransaction, none
// after AbortTransaction. The callbacks of a transaction's records run
// when it ends.
func ExampleProducer_CommitTransaction() {
	c := exampleCluster()
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.TransactionalID("orders-writer"))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx := context.Background()
	if err := p.InitTransactions(ctx); err != nil {
		log.Fatal(err)
	}

	// transfer writes one record to each of two partitions in one
	// transaction, and returns the callbacks' outcomes.
	transfer := func(debit, credit string, commit bool) []string {
		if err := p.BeginTransaction(); err != nil {
			log.Fatal(err)
		}
		outcomes := make([]string, 2)
		for i, v := range []string{debit, credit} {
			p.Produce(ctx, &client.Record{Topic: "orders", Partition: int32(i), HasPartition: true, Value: []byte(v)},
				func(r *client.Record, err error) {
					switch {
					case err == nil:
						outcomes[i] = fmt.Sprintf("%s committed at %d/%d", r.Value, r.Partition, r.Offset)
					case errors.Is(err, client.ErrAborted):
						outcomes[i] = fmt.Sprintf("%s aborted", r.Value)
					default:
						outcomes[i] = fmt.Sprintf("%s failed: %v", r.Value, err)
					}
				})
		}
		if !commit {
			if err := p.AbortTransaction(ctx); err != nil {
				log.Fatal(err)
			}
			return outcomes
		}
		switch err := p.CommitTransaction(ctx); {
		case err == nil:
		case errors.Is(err, client.ErrTxnAbortable):
			// The transaction cannot commit: abort it and go on.
			if err := p.AbortTransaction(ctx); err != nil {
				log.Fatal(err)
			}
		default:
			// ErrTxnFatal (ErrFenced: a newer instance took over), or
			// the context ended (call CommitTransaction again).
			log.Fatal(err)
		}
		return outcomes
	}
	fmt.Println(transfer("debit-1", "credit-1", true))
	fmt.Println(transfer("debit-2", "credit-2", false))
	// Output:
	// [debit-1 committed at 0/0 credit-1 committed at 1/0]
	// [debit-2 aborted credit-2 aborted]
}
