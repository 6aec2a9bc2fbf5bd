// Command txn is a produce-only transactional producer: it initializes
// transactions, then produces its messages in transactions, committing each
// one but the transaction numbered abort, which it aborts. Errors are
// handled as confluent-kafka-go's and librdkafka's documentation says:
// TxnRequiresAbort → abort the transaction (and produce its messages again
// in a new one), IsRetriable → call again, IsFatal (or any other error) →
// exit.
//
// It prints "Delivered <value> to <topic>[<partition>]@<offset>" for each
// message delivered in a committed transaction, "Failed <value>: <error>
// (<code>)" for each message of an aborted one.
//
// Usage: txn <bootstrap.servers> <topic> <count> [transactions] [abort]
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

func main() {
	if len(os.Args) < 4 || len(os.Args) > 6 {
		fmt.Fprintf(os.Stderr, "Usage: %s <bootstrap-servers> <topic> <count> [transactions] [abort]\n", os.Args[0])
		os.Exit(1)
	}
	bootstrapServers := os.Args[1]
	topic := os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])
	transactions, abort := 5, 2
	if len(os.Args) > 4 {
		transactions, _ = strconv.Atoi(os.Args[4])
	}
	if len(os.Args) > 5 {
		abort, _ = strconv.Atoi(os.Args[5])
	}
	perTxn := count / transactions

	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":      bootstrapServers,
		"transactional.id":       "txn-program-" + topic,
		"transaction.timeout.ms": 30000,
	})
	if err != nil {
		fmt.Printf("Failed to create producer: %s\n", err)
		os.Exit(1)
	}

	// Delivery reports are served from their own goroutine: CommitTransaction
	// and AbortTransaction wait for them.
	reports := make(chan struct{})
	go func() {
		defer close(reports)
		for e := range p.Events() {
			switch ev := e.(type) {
			case *kafka.Message:
				if ev.TopicPartition.Error != nil {
					kerr, _ := ev.TopicPartition.Error.(kafka.Error)
					fmt.Printf("Failed %s: %v (%v)\n", string(ev.Value), ev.TopicPartition.Error, kerr.Code())
				} else {
					fmt.Printf("Delivered %s to %v\n", string(ev.Value), ev.TopicPartition)
				}
			case kafka.Error:
				fmt.Printf("Error event: %v (fatal %v)\n", ev, ev.IsFatal())
			}
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call("InitTransactions", func() error { return p.InitTransactions(ctx) })

	// With transactional.id, producing outside a transaction is refused.
	err = p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: []byte("outside")}, nil)
	if kerr, ok := err.(kafka.Error); ok {
		fmt.Printf("Produce outside a transaction: %v\n", kerr.Code())
	} else {
		fmt.Printf("Produce outside a transaction: %v\n", err)
	}

	committed, aborted := 0, 0
	for t := 0; t < transactions; t++ {
		if call("BeginTransaction", p.BeginTransaction) {
			fmt.Printf("BUG: BeginTransaction requires abort\n")
			os.Exit(2)
		}
		for i := t * perTxn; i < (t+1)*perTxn; i++ {
			err := p.Produce(&kafka.Message{
				TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
				Value:          []byte(fmt.Sprintf("txn-%d", i)),
			}, nil)
			if err != nil {
				fmt.Printf("Produce failed: %v\n", err)
				os.Exit(2)
			}
		}
		if t == abort {
			abortTransaction(ctx, p)
			aborted++
			fmt.Printf("Aborted transaction %d\n", t)
			continue
		}
		if call("CommitTransaction", func() error { return p.CommitTransaction(ctx) }) {
			// The transaction cannot commit: abort it and produce its
			// messages again in a new one.
			abortTransaction(ctx, p)
			fmt.Printf("Transaction %d failed: produced again\n", t)
			t--
			continue
		}
		committed++
		fmt.Printf("Committed transaction %d\n", t)
	}

	// Once the last transaction has ended, nothing is left to flush.
	if n := p.Flush(10000); n != 0 {
		fmt.Printf("Flush: %d left\n", n)
		os.Exit(3)
	}
	p.Close()
	<-reports
	fmt.Printf("Transactions: %d committed, %d aborted\n", committed, aborted)
}

// call runs a transactional call until it succeeds and reports whether it
// requires the transaction to be aborted; it retries retriable errors and
// exits on fatal ones (and on any other error, as librdkafka recommends).
func call(what string, f func() error) (requiresAbort bool) {
	for {
		err := f()
		if err == nil {
			return false
		}
		kerr, ok := err.(kafka.Error)
		switch {
		case !ok:
			fmt.Printf("%s: %v\n", what, err)
			os.Exit(2)
		case kerr.IsFatal():
			fmt.Printf("%s: fatal error: %v\n", what, kerr)
			os.Exit(2)
		case kerr.TxnRequiresAbort():
			fmt.Printf("%s: transaction must be aborted: %v\n", what, kerr)
			return true
		case kerr.IsRetriable():
			fmt.Printf("%s: retrying: %v\n", what, kerr)
			time.Sleep(100 * time.Millisecond)
		default:
			fmt.Printf("%s: %v (code %v)\n", what, kerr, kerr.Code())
			os.Exit(2)
		}
	}
}

func abortTransaction(ctx context.Context, p *kafka.Producer) {
	if call("AbortTransaction", func() error { return p.AbortTransaction(ctx) }) {
		fmt.Printf("BUG: AbortTransaction requires abort\n")
		os.Exit(2)
	}
}
