package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

// topicFlags collects repeated -topic NAME:PARTITIONS flags.
type topicFlags []string

func (t *topicFlags) String() string { return strings.Join(*t, ",") }

func (t *topicFlags) Set(v string) error {
	name, parts, ok := strings.Cut(v, ":")
	if !ok || name == "" {
		return fmt.Errorf("want NAME:PARTITIONS, got %q", v)
	}
	if n, err := strconv.Atoi(parts); err != nil || n < 1 {
		return fmt.Errorf("bad partition count in %q", v)
	}
	*t = append(*t, v)
	return nil
}

// runSim serves a simulated cluster until ctx ends. The first stdout line
// is the comma-separated bootstrap addresses.
func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rollsafe sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brokers := fs.Int("brokers", 3, "number of brokers")
	replication := fs.Int("replication", 0, "replication factor (default min(3, brokers))")
	listen := fs.String("listen", "127.0.0.1:0", "first broker's address; port 0 = ephemeral ports, port P = P, P+1, ...")
	seed := fs.Int64("seed", 1, "seed for the simulator's choices")
	verbose := fs.Bool("v", false, "log cluster events to stderr")
	var sec simSecurityFlags
	sec.register(fs)
	var topics topicFlags
	fs.Var(&topics, "topic", "NAME:PARTITIONS to create (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: rollsafe sim [-brokers N] [-topic NAME:PARTITIONS]... [flags]")
		fmt.Fprintln(fs.Output(), "Prints the bootstrap addresses (comma-separated) as its first line, then serves until SIGINT/SIGTERM.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "rollsafe sim: unexpected arguments %q\n", fs.Args())
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	opts := []sim.Option{
		sim.Brokers(*brokers), sim.Listen(*listen), sim.Seed(*seed),
		sim.Logger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))),
	}
	secOpts, code, err := sec.options()
	if err != nil {
		fmt.Fprintf(stderr, "rollsafe sim: %v\n", err)
		return code
	}
	opts = append(opts, secOpts...)
	for _, t := range topics {
		name, parts, _ := strings.Cut(t, ":")
		n, _ := strconv.Atoi(parts)
		opts = append(opts, sim.Topic(name, int32(n), *replication))
	}
	c, err := sim.NewCluster(opts...)
	if err != nil {
		fmt.Fprintf(stderr, "rollsafe sim: %v\n", err)
		return 1
	}
	if _, err := fmt.Fprintln(stdout, strings.Join(c.Addrs(), ",")); err != nil {
		_ = c.Close()
		return 1
	}
	<-ctx.Done()
	if err := c.Close(); err != nil {
		fmt.Fprintf(stderr, "rollsafe sim: %v\n", err)
		return 1
	}
	return 0
}

// saslPasswordEnv names the environment variable holding the SASL password
// of `rollsafe sim` (never a flag: flags show in process listings).
const saslPasswordEnv = "ROLLSAFE_SASL_PASSWORD"

// simSecurityFlags are the TLS and SASL flags of `rollsafe sim`.
type simSecurityFlags struct {
	cert, key      *string
	mech, user     *string
	reauthLifetime *time.Duration
}

func (f *simSecurityFlags) register(fs *flag.FlagSet) {
	f.cert = fs.String("tls-cert", "", "serve TLS with this PEM certificate file (with -tls-key)")
	f.key = fs.String("tls-key", "", "PEM private key file of -tls-cert")
	f.mech = fs.String("sasl-mechanism", "", "require SASL: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (with -sasl-user; the password is read from $"+saslPasswordEnv+"), or OAUTHBEARER (Kafka's unsecured JWS validator: alg none, sub, exp)")
	f.user = fs.String("sasl-user", "", "the SASL user")
	f.reauthLifetime = fs.Duration("sasl-session-lifetime", 0, "SASL session lifetime (KIP-368); 0 = sessions never expire")
}

// options turns the flags into simulator options; on error it also returns
// the exit code (2 for usage errors). Errors never hold the password.
func (f *simSecurityFlags) options() ([]sim.Option, int, error) {
	var opts []sim.Option
	switch {
	case (*f.cert == "") != (*f.key == ""):
		return nil, 2, errors.New("-tls-cert and -tls-key go together")
	case *f.cert != "":
		pair, err := tls.LoadX509KeyPair(*f.cert, *f.key)
		if err != nil {
			return nil, 1, fmt.Errorf("TLS certificate: %w", err)
		}
		opts = append(opts, sim.TLS(&tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}))
	}
	switch *f.mech {
	case "":
		if *f.user != "" || *f.reauthLifetime != 0 {
			return nil, 2, errors.New("-sasl-user and -sasl-session-lifetime need -sasl-mechanism")
		}
		return opts, 0, nil
	case sim.MechPlain, sim.MechScramSHA256, sim.MechScramSHA512:
	case sim.MechOAuthBearer:
		if *f.user != "" {
			return nil, 2, errors.New("-sasl-mechanism OAUTHBEARER takes no -sasl-user (any valid token's sub is its principal)")
		}
		opts = append(opts, sim.SASLOAuthBearer())
		if *f.reauthLifetime != 0 {
			opts = append(opts, sim.SessionLifetime(*f.reauthLifetime))
		}
		return opts, 0, nil
	default:
		return nil, 2, fmt.Errorf("-sasl-mechanism %q: want %s, %s, %s or %s", *f.mech, sim.MechPlain, sim.MechScramSHA256, sim.MechScramSHA512, sim.MechOAuthBearer)
	}
	if *f.user == "" {
		return nil, 2, errors.New("-sasl-mechanism needs -sasl-user")
	}
	pass, ok := os.LookupEnv(saslPasswordEnv)
	if !ok || pass == "" {
		return nil, 2, fmt.Errorf("-sasl-user needs the password in $%s", saslPasswordEnv)
	}
	opts = append(opts, sim.SASL(*f.mech, *f.user, pass))
	if *f.reauthLifetime != 0 {
		opts = append(opts, sim.SessionLifetime(*f.reauthLifetime))
	}
	return opts, 0, nil
}
