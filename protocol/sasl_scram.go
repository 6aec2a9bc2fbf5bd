package protocol

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
)

// SCRAM iteration bounds accepted from a server. Kafka refuses fewer than
// 4096 iterations for SCRAM-SHA-256/512 credentials; a lower count offered
// by a server would weaken the proof we send, and a huge one would burn
// CPU, so both are refused.
const (
	scramMinIterations = 4096
	scramMaxIterations = 1 << 20
)

// errSCRAM is the cause of every malformed-server-message failure.
var errSCRAM = errors.New("invalid SCRAM server message")

// scramMechanism is SCRAM (RFC 5802) with SHA-256 (RFC 7677) or SHA-512,
// without channel binding, as Kafka speaks it.
type scramMechanism struct {
	name       string
	hash       func() hash.Hash
	user, pass string
}

// SASLScramSHA256 returns the SCRAM-SHA-256 mechanism for user and
// password. Names and passwords are used as given (no SASLprep), as Kafka
// does.
func SASLScramSHA256(user, password string) SASLMechanism {
	return &scramMechanism{name: MechanismScramSHA256, hash: sha256.New, user: user, pass: password}
}

// SASLScramSHA512 returns the SCRAM-SHA-512 mechanism for user and
// password.
func SASLScramSHA512(user, password string) SASLMechanism {
	return &scramMechanism{name: MechanismScramSHA512, hash: sha512.New, user: user, pass: password}
}

func (m *scramMechanism) Name() string { return m.name }

// String names the mechanism without its credentials.
func (m *scramMechanism) String() string { return m.name }

// GoString keeps the credentials out of %#v.
func (m *scramMechanism) GoString() string { return "protocol.SASL(" + m.name + ", <redacted>)" }

func (m *scramMechanism) secrets() []string { return []string{m.pass, m.user} }

func (m *scramMechanism) Start() (SASLExchange, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("SCRAM client nonce: %w", err)
	}
	return &scramExchange{m: m, cnonce: base64.RawStdEncoding.EncodeToString(b[:])}, nil
}

// scramExchange walks client-first, server-first, client-final and
// server-final.
type scramExchange struct {
	m         *scramMechanism
	stage     int // 0: send client-first; 1: got server-first; 2: got server-final
	cnonce    string
	bare      string // client-first-message-bare
	serverSig []byte
}

func (e *scramExchange) Step(challenge []byte) ([]byte, bool, error) {
	switch e.stage {
	case 0:
		e.stage = 1
		e.bare = "n=" + scramEscape(e.m.user) + ",r=" + e.cnonce
		return []byte("n,," + e.bare), false, nil
	case 1:
		e.stage = 2
		return e.clientFinal(string(challenge))
	case 2:
		e.stage = 3
		return nil, true, e.verify(string(challenge))
	}
	return nil, false, fmt.Errorf("%w: message after the exchange ended", errSCRAM)
}

func (e *scramExchange) mac(key []byte, msg string) []byte {
	h := hmac.New(e.m.hash, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// clientFinal parses "r=nonce,s=salt,i=iterations" and answers
// "c=biws,r=nonce,p=proof".
func (e *scramExchange) clientFinal(serverFirst string) ([]byte, bool, error) {
	var nonce, salt64, iters string
	for i, attr := range strings.Split(serverFirst, ",") {
		k, v, ok := strings.Cut(attr, "=")
		if !ok || len(k) != 1 {
			return nil, false, fmt.Errorf("%w: malformed attribute in server-first message", errSCRAM)
		}
		switch {
		case i == 0 && k == "m":
			return nil, false, fmt.Errorf("%w: server requires an unsupported extension", errSCRAM)
		case i == 0 && k == "e":
			return nil, false, fmt.Errorf("%w: server error %q", errSCRAM, v)
		case k == "r" && nonce == "":
			nonce = v
		case k == "s" && salt64 == "":
			salt64 = v
		case k == "i" && iters == "":
			iters = v
		}
	}
	if !strings.HasPrefix(nonce, e.cnonce) || len(nonce) == len(e.cnonce) || strings.ContainsAny(nonce, "\x00") {
		return nil, false, fmt.Errorf("%w: server nonce does not extend the client nonce", errSCRAM)
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil || len(salt) == 0 {
		return nil, false, fmt.Errorf("%w: bad salt", errSCRAM)
	}
	n, err := strconv.Atoi(iters)
	if err != nil || n < scramMinIterations || n > scramMaxIterations {
		return nil, false, fmt.Errorf("%w: iteration count %q outside %d..%d", errSCRAM, iters, scramMinIterations, scramMaxIterations)
	}
	salted, err := pbkdf2.Key(e.m.hash, e.m.pass, salt, n, e.m.hash().Size())
	if err != nil {
		return nil, false, fmt.Errorf("SCRAM salted password: %w", err)
	}
	clientKey := e.mac(salted, "Client Key")
	h := e.m.hash()
	h.Write(clientKey)
	storedKey := h.Sum(nil)
	withoutProof := "c=biws,r=" + nonce // biws: base64 of the gs2 header "n,,"
	authMessage := e.bare + "," + serverFirst + "," + withoutProof
	proof := e.mac(storedKey, authMessage)
	for i := range proof {
		proof[i] ^= clientKey[i]
	}
	e.serverSig = e.mac(e.mac(salted, "Server Key"), authMessage)
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)), false, nil
}

// verify checks the server-final message "v=signature" (or "e=error").
func (e *scramExchange) verify(serverFinal string) error {
	k, v, _ := strings.Cut(serverFinal, ",")
	switch {
	case strings.HasPrefix(k, "e="):
		return fmt.Errorf("%w: server error %q", errSCRAM, k[2:])
	case !strings.HasPrefix(k, "v="):
		return fmt.Errorf("%w: server-final message without a signature", errSCRAM)
	}
	_ = v // extensions after the signature are ignored
	sig, err := base64.StdEncoding.DecodeString(k[2:])
	if err != nil || !hmac.Equal(sig, e.serverSig) {
		return ErrServerSignature
	}
	return nil
}

// scramEscape encodes a saslname: ',' as "=2C" and '=' as "=3D".
func scramEscape(s string) string {
	if !strings.ContainsAny(s, ",=") {
		return s
	}
	return strings.NewReplacer("=", "=3D", ",", "=2C").Replace(s)
}
