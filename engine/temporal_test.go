package engine_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// pki is a test CA with a frontend certificate and a client certificate, as
// PEM files.
type pki struct {
	ca                    *x509.Certificate
	caFile                string
	serverCert, serverKey string
	clientCert, clientKey string
	client                *x509.Certificate
}

// frontendName is the name in the frontend's certificate.
const frontendName = "frontend.clinevo.test"

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return f
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "clinevo test CA"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	issue := func(serial int64, name string, usage []x509.ExtKeyUsage) (certFile, keyFile string, cert *x509.Certificate) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name}, NotBefore: now.Add(-time.Hour),
			NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usage,
			DNSNames: []string{name}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		cert, err = x509.ParseCertificate(der)
		require.NoError(t, err)
		kb, err := x509.MarshalPKCS8PrivateKey(key)
		require.NoError(t, err)
		return write(name+".pem", "CERTIFICATE", der), write(name+".key", "PRIVATE KEY", kb), cert
	}
	p := pki{ca: ca, caFile: write("ca.pem", "CERTIFICATE", caDER)}
	// The frontend's certificate serves and, for the server's system worker, dials.
	p.serverCert, p.serverKey, _ = issue(2, frontendName, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth})
	p.clientCert, p.clientKey, p.client = issue(3, "worker.clinevo.test", []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
	return p
}

func TestClientOptions(t *testing.T) {
	p := newPKI(t)
	t.Setenv("CLINEVO_TEST_TEMPORAL_KEY", "tk-test-1a2b")
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	base := config.TemporalConfig{Address: "clinevo.a1b2c.tmprl.cloud:7233", Namespace: "clinevo.a1b2c", TaskQueue: "clinevo"}
	with := func(f func(*config.TemporalConfig)) config.TemporalConfig {
		c := base
		f(&c)
		return c
	}
	for _, c := range []struct {
		name    string
		cfg     config.TemporalConfig
		tls     bool   // TLS settings built
		roots   bool   // the CA is the only root
		cert    bool   // the client certificate is presented
		key     bool   // API key credentials set
		wantErr string // an error naming the key
	}{
		{name: "plaintext", cfg: base},
		{name: "ca only", cfg: with(func(c *config.TemporalConfig) { c.TLS.CAFile = p.caFile }), tls: true, roots: true},
		{name: "mutual tls", cfg: with(func(c *config.TemporalConfig) {
			c.TLS = config.TemporalTLS{CAFile: p.caFile, CertFile: p.clientCert, KeyFile: p.clientKey, ServerName: frontendName}
		}), tls: true, roots: true, cert: true},
		{name: "api key", cfg: with(func(c *config.TemporalConfig) { c.APIKeyEnv = "CLINEVO_TEST_TEMPORAL_KEY" }), key: true},
		{name: "api key unset", cfg: with(func(c *config.TemporalConfig) { c.APIKeyEnv = "CLINEVO_TEST_NO_SUCH_KEY" }),
			wantErr: "temporal.api_key_env names CLINEVO_TEST_NO_SUCH_KEY, which is not set"},
		{name: "missing ca", cfg: with(func(c *config.TemporalConfig) { c.TLS.CAFile = filepath.Join(t.TempDir(), "none.pem") }),
			wantErr: "temporal.tls.ca_file"},
		{name: "ca not pem", cfg: with(func(c *config.TemporalConfig) { c.TLS.CAFile = notPEM }),
			wantErr: "temporal.tls.ca_file " + notPEM + ": no PEM certificate in it"},
		{name: "key mismatch", cfg: with(func(c *config.TemporalConfig) {
			c.TLS = config.TemporalTLS{CertFile: p.clientCert, KeyFile: p.serverKey}
		}), wantErr: "temporal.tls.cert_file " + p.clientCert + " and key_file " + p.serverKey},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts, err := engine.ClientOptions(c.cfg)
			if c.wantErr != "" {
				require.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.cfg.Address, opts.HostPort)
			require.Equal(t, c.cfg.Namespace, opts.Namespace)
			require.Equal(t, c.key, opts.Credentials != nil)
			tc := opts.ConnectionOptions.TLS
			require.Equal(t, c.tls, tc != nil)
			if tc == nil {
				return
			}
			require.Equal(t, c.cfg.TLS.ServerName, tc.ServerName)
			if c.roots {
				_, err := p.client.Verify(x509.VerifyOptions{Roots: tc.RootCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
				require.NoError(t, err, "the CA file is a root")
			}
			if !c.cert {
				require.Empty(t, tc.Certificates)
				return
			}
			require.Len(t, tc.Certificates, 1)
			require.Equal(t, p.client.Raw, tc.Certificates[0].Certificate[0])
		})
	}
}

// TestDialTLSFrontend dials an embedded server whose frontend requires mutual
// TLS, through the options the config builds, with an API key.
func TestDialTLSFrontend(t *testing.T) {
	p := newPKI(t)
	srv, err := devserver.Start(devserver.Options{DataDir: t.TempDir(), Port: enginetest.FreePort(t),
		TLS: &devserver.TLS{CertFile: p.serverCert, KeyFile: p.serverKey, CAFile: p.caFile, ServerName: frontendName}})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	const key = "tk-test-9z8y"
	t.Setenv("CLINEVO_TEST_TEMPORAL_KEY", key)
	secured := config.TemporalConfig{Address: srv.Address(), Namespace: "default", APIKeyEnv: "CLINEVO_TEST_TEMPORAL_KEY",
		TLS: config.TemporalTLS{CAFile: p.caFile, CertFile: p.clientCert, KeyFile: p.clientKey, ServerName: frontendName}}

	dial := func(t *testing.T, cfg config.TemporalConfig) (client.Client, *[]string, error) {
		opts, err := engine.ClientOptions(cfg)
		require.NoError(t, err)
		var mu sync.Mutex
		var auth []string
		// Runs after the SDK's own interceptors, so it sees the headers they add.
		opts.ConnectionOptions.DialOptions = []grpc.DialOption{grpc.WithChainUnaryInterceptor(
			func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, o ...grpc.CallOption) error {
				md, _ := metadata.FromOutgoingContext(ctx)
				mu.Lock()
				auth = append(auth, md.Get("authorization")...)
				mu.Unlock()
				return invoker(ctx, method, req, reply, cc, o...)
			})}
		opts.Logger = quietLogger{}
		c, err := client.Dial(opts)
		return c, &auth, err
	}

	c, auth, err := dial(t, secured)
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.WorkflowService().DescribeNamespace(context.Background(), &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
	require.NoError(t, err)
	require.Equal(t, "default", resp.NamespaceInfo.Name)
	require.NotEmpty(t, *auth)
	require.Equal(t, "Bearer "+key, (*auth)[0], "the API key goes with every call")

	t.Run("without a client certificate", func(t *testing.T) {
		cfg := secured
		cfg.TLS.CertFile, cfg.TLS.KeyFile = "", ""
		c, _, err := dial(t, cfg)
		if err == nil {
			// TLS 1.3 reports a refused client certificate on the first call.
			defer c.Close()
			_, err = c.WorkflowService().DescribeNamespace(context.Background(), &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
		}
		// The client reads the server's alert, or, when it writes first, finds
		// the connection the server closed over the missing certificate.
		require.Error(t, err, "the frontend requires mutual TLS")
		require.Regexp(t, `tls: certificate required|broken pipe|connection reset by peer`, err.Error(), "the frontend requires mutual TLS")
	})
	t.Run("without the CA", func(t *testing.T) {
		cfg := secured
		cfg.TLS.CAFile = ""
		_, _, err := dial(t, cfg)
		require.ErrorContains(t, err, "certificate signed by unknown authority")
	})
}
