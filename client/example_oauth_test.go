package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// SASL OAUTHBEARER with a token provider: it is asked when a connection,
// or a re-authentication at the end of a token's session, needs a token
// and the last one is past 80% of its lifetime. Here the provider makes
// unsecured JWTs, which the sim (like a Kafka broker with its default
// validator) accepts; a real one fetches a token from an identity
// provider.
func ExampleSASLOAuthBearer() {
	ca, err := sim.NewTestCA()
	if err != nil {
		log.Fatal(err)
	}
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("orders", 3, 3), sim.TLS(ca.ServerConfig()), sim.SASLOAuthBearer())
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	provider := func(ctx context.Context) (client.OAuthBearerToken, error) {
		now := time.Now()
		exp := now.Add(time.Hour)
		return client.OAuthBearerToken{Value: sim.UnsecuredJWT("orders-svc", now, exp, nil), Principal: "orders-svc", Expiry: exp}, nil
	}
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.WithTLS(ca.ClientConfig()), client.SASLOAuthBearer(provider))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	res := p.ProduceSync(context.Background(), &client.Record{Topic: "orders", Partition: 2, HasPartition: true, Value: []byte("paid")})
	fmt.Println(res.FirstErr(), res[0].Record.Partition)

	// A token the broker refuses (here: it names no subject) fails records
	// at once, certainly not written. (An expired token is never sent: the
	// provider is asked again, as for a failure of its own.)
	noSubject := func(context.Context) (client.OAuthBearerToken, error) {
		now := time.Now()
		return client.OAuthBearerToken{Value: sim.UnsecuredJWT("", now, now.Add(time.Hour), nil)}, nil
	}
	bad, err := client.NewProducer(client.Brokers(c.Addrs()...), client.WithTLS(ca.ClientConfig()), client.SASLOAuthBearer(noSubject))
	if err != nil {
		log.Fatal(err)
	}
	defer bad.Close(context.Background())
	err = bad.ProduceSync(context.Background(), &client.Record{Topic: "orders", Value: []byte("x")}).FirstErr()
	fmt.Println(errors.Is(err, client.ErrTokenRejected), errors.Is(err, client.ErrAuthentication), errors.Is(err, client.ErrNotWritten))
	// Output:
	// <nil> 2
	// true true true
}
