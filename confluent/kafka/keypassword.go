package kafka

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/rollsafe/rollsafe/client"
)

// decryptKey returns keyPEM with its private key decrypted with password
// when it is encrypted the legacy PEM way (RFC 1423, "Proc-Type:
// 4,ENCRYPTED", as "openssl genrsa -aes256" writes). An encrypted PKCS#8
// key ("ENCRYPTED PRIVATE KEY") is an error: Go's standard library cannot
// decrypt it. An unencrypted key is returned as it is, password or not, as
// librdkafka ignores ssl.key.password then.
func decryptKey(keyPEM []byte, password string) ([]byte, error) {
	var out []byte
	rest := keyPEM
	for {
		block, r := pem.Decode(rest)
		if block == nil {
			break
		}
		rest = r
		switch {
		case block.Type == "ENCRYPTED PRIVATE KEY":
			return nil, configError(`"ssl.key.password": the key is an encrypted PKCS#8 key, which rollsafe cannot decrypt; decrypt it ("openssl pkcs8 -in key.pem -out plain.pem") or re-encrypt it the legacy way ("openssl rsa -aes256")`)
		case x509.IsEncryptedPEMBlock(block): //nolint:staticcheck // deprecated, but legacy PEM encryption is what ssl.key.password decrypts
			if password == "" {
				return nil, configError(`"ssl.key.password" is required: the private key is encrypted`)
			}
			der, err := x509.DecryptPEMBlock(block, []byte(password)) //nolint:staticcheck
			if err != nil {
				return nil, Error{code: ErrInvalidArg, str: fmt.Sprintf(`"ssl.key.password": cannot decrypt the private key: %v`, err), err: errors.Join(client.ErrInvalidConfig, err)}
			}
			block = &pem.Block{Type: block.Type, Bytes: der}
		}
		out = append(out, pem.EncodeToMemory(block)...)
	}
	if out == nil {
		return keyPEM, nil // not PEM: tls.X509KeyPair says so
	}
	return out, nil
}
