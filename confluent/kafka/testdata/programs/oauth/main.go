// Command oauth produces over SASL/OAUTHBEARER with tokens it makes
// itself: it answers each OAuthBearerTokenRefresh event on Events() with
// an unsecured JWT ("alg":"none") for the principal named in
// sasl.oauthbearer.config, living lifeSeconds, through a handler that
// takes the kafka.Handle interface (SetOAuthBearerToken, or
// SetOAuthBearerTokenFailure when the configuration is unusable). The
// token's "exp" claim is whole seconds, as JWTs have it. It produces
// count messages with a header, one every interval milliseconds, prints
// every delivery report and exits 1 if any message failed.
//
// Usage: oauth <bootstrap.servers> <topic> <count> <principal=NAME> <lifeSeconds> <intervalMs>
package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

var lifetime time.Duration

// refreshToken answers one refresh event on any client handle.
func refreshToken(h kafka.Handle, ev kafka.OAuthBearerTokenRefresh) {
	tok, err := makeToken(ev.Config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "token: %v\n", err)
		_ = h.SetOAuthBearerTokenFailure(err.Error())
		return
	}
	if err := h.SetOAuthBearerToken(tok); err != nil {
		fmt.Fprintf(os.Stderr, "SetOAuthBearerToken: %v\n", err)
		_ = h.SetOAuthBearerTokenFailure(err.Error())
	}
}

// makeToken reads "principal=NAME" and makes an unsigned JWT for NAME.
func makeToken(config string) (kafka.OAuthBearerToken, error) {
	k, principal, ok := strings.Cut(strings.TrimSpace(config), "=")
	if !ok || k != "principal" || principal == "" {
		return kafka.OAuthBearerToken{}, errors.New("sasl.oauthbearer.config must be principal=NAME")
	}
	now := time.Now()
	expiry := now.Add(lifetime)
	claims, _ := json.Marshal(map[string]any{"sub": principal, "iat": now.Unix(), "exp": expiry.Unix()})
	enc := base64.RawURLEncoding
	return kafka.OAuthBearerToken{
		TokenValue: enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString(claims) + ".",
		Expiration: expiry,
		Principal:  principal,
		Extensions: map[string]string{},
	}, nil
}

func main() {
	if len(os.Args) != 7 {
		fmt.Fprintf(os.Stderr, "Usage: %s <bootstrap-servers> <topic> <count> <principal=NAME> <lifeSeconds> <intervalMs>\n", os.Args[0])
		os.Exit(1)
	}
	bootstrapServers, topic := os.Args[1], os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])
	life, _ := strconv.Atoi(os.Args[5])
	interval, _ := strconv.Atoi(os.Args[6])
	lifetime = time.Duration(life) * time.Second

	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":       bootstrapServers,
		"security.protocol":       "SASL_PLAINTEXT",
		"sasl.mechanisms":         "OAUTHBEARER",
		"sasl.oauthbearer.config": os.Args[4],
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "Failed to create producer: %s\n", err)
		os.Exit(1)
	}

	failed, refreshes := 0, 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		n := 0
		for ev := range p.Events() {
			switch e := ev.(type) {
			case kafka.OAuthBearerTokenRefresh:
				refreshes++
				refreshToken(p, e)
			case *kafka.Message:
				n++
				if e.TopicPartition.Error != nil {
					failed++
					fmt.Printf("Delivery failed for %s: %v\n", e.Value, e.TopicPartition.Error)
				} else {
					fmt.Printf("Delivered %s to %s[%d]@%d\n", e.Value, *e.TopicPartition.Topic, e.TopicPartition.Partition, e.TopicPartition.Offset)
				}
				if n == count {
					return
				}
			case kafka.Error:
				fmt.Printf("Error: %v\n", e)
			}
		}
	}()

	for i := 0; i < count; i++ {
		value := fmt.Sprintf("oauth-%d", i)
		err = p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
			Value:          []byte(value),
			Headers:        []kafka.Header{{Key: "myTestHeader", Value: []byte("header values are binary")}},
		}, nil)
		if err != nil {
			fmt.Printf("Failed to produce message: %v\n", err)
			os.Exit(1)
		}
		time.Sleep(time.Duration(interval) * time.Millisecond)
	}
	<-done
	fmt.Printf("Token refreshes: %d\n", refreshes)
	p.Close()
	if failed > 0 {
		fmt.Printf("%d of %d messages failed\n", failed, count)
		os.Exit(1)
	}
}
