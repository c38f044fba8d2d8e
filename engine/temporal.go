package engine

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/telemetry"
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

// ClientOptionsWith are the options of a process's Temporal clients: the
// connection t describes (ClientOptions), the SDK's logs (and so a worker's
// workflows' and activities': "stream started", "waiting for a
// dependency") on log, and, traced, the tracing interceptors
// (telemetry.ClientOptions).
func ClientOptionsWith(t config.TemporalConfig, log *slog.Logger, traced bool) (client.Options, error) {
	opts, err := ClientOptions(t)
	if err != nil {
		return client.Options{}, err
	}
	opts.Logger = sdklog.NewStructuredLogger(log)
	if traced {
		if err := telemetry.ClientOptions(&opts); err != nil {
			return client.Options{}, err
		}
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

// Dial connects to the Temporal frontend t names with opts (ClientOptions(t)
// and what the caller adds: a logger, interceptors). Its error says where
// the address came from and what points elsewhere.
func Dial(t config.TemporalConfig, opts client.Options) (client.Client, error) {
	c, err := client.Dial(opts)
	if err != nil {
		if t.Source != "" {
			return nil, fmt.Errorf("connect to Temporal at %s (from %s, written by `clinevo dev`: is it still running? --address overrides): %w", t.Address, t.Source, err)
		}
		return nil, fmt.Errorf("connect to Temporal at %s: %w (is `clinevo dev` running? --address, CLINEVO_TEMPORAL_ADDRESS or temporal.address point elsewhere)", t.Address, err)
	}
	return c, nil
}

// DialPatiently waits for a frontend that is not up yet (a worker may start
// before its server): it calls dial every poll until dial succeeds, ctx ends
// or patience has passed, and notes the first failure on note.
func DialPatiently(ctx context.Context, dial func() (client.Client, error), note io.Writer, patience, poll time.Duration) (client.Client, error) {
	deadline := time.Now().Add(patience)
	for noted := false; ; noted = true {
		c, err := dial()
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		if !noted {
			fmt.Fprintln(note, "waiting for the Temporal frontend:", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// Embedded is the in-process server at address as t's namespace and task
// queue see it: plaintext on loopback, so the configured TLS and API key
// (meant for a remote cluster) do not apply.
func Embedded(address string, t config.TemporalConfig) config.TemporalConfig {
	return config.TemporalConfig{Address: address, Namespace: t.Namespace, TaskQueue: t.TaskQueue}
}
