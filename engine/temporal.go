package engine

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/config"
)

// ClientOptions builds the options that dial the configured Temporal frontend:
// its address and namespace, TLS (the CA that signed the frontend's
// certificate, a client certificate for mutual TLS, the name to verify) and an
// API key read from the environment variable the config names. The key lives
// only in the returned options. The caller adds a logger and interceptors.
func ClientOptions(t config.TemporalConfig) (client.Options, error) {
	opts := client.Options{HostPort: t.Address, Namespace: t.Namespace}
	tc, err := clientTLS(t.TLS)
	if err != nil {
		return client.Options{}, err
	}
	opts.ConnectionOptions.TLS = tc
	if t.APIKeyEnv != "" {
		key := os.Getenv(t.APIKeyEnv)
		if key == "" {
			return client.Options{}, fmt.Errorf("engine: temporal.api_key_env names %s, which is not set", t.APIKeyEnv)
		}
		// With a key and no TLS settings the SDK turns TLS on with the system's
		// roots: Temporal Cloud takes keys over TLS only.
		opts.Credentials = client.NewAPIKeyStaticCredentials(key)
	}
	return opts, nil
}

// clientTLS loads the TLS settings; none set means plaintext (nil).
func clientTLS(t config.TemporalTLS) (*tls.Config, error) {
	if t == (config.TemporalTLS{}) {
		return nil, nil
	}
	c := &tls.Config{ServerName: t.ServerName, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("engine: temporal.tls.ca_file: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("engine: temporal.tls.ca_file %s: no PEM certificate in it", t.CAFile)
		}
	}
	if t.CertFile != "" || t.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("engine: temporal.tls.cert_file %s and key_file %s: %w", t.CertFile, t.KeyFile, err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}
