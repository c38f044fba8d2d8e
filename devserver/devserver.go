// Package devserver runs a real Temporal server inside the clinevo process:
// one history shard, SQLite persistence in a file (WAL), the default namespace
// with clinevo's search attributes. It is what makes `clinevo demo` and `clinevo
// dev` work with no Docker and no network.
package devserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/devserver/serverlog"
	"github.com/clinevo/clinevo/internal/dirlock"
	"github.com/clinevo/clinevo/internal/freeport"
	"github.com/clinevo/clinevo/internal/sqliteuri"
)

// SearchAttributes are contract.SearchAttributes as Temporal's types.
var SearchAttributes = func() map[string]enumspb.IndexedValueType {
	types := map[string]enumspb.IndexedValueType{"Keyword": enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		"Int": enumspb.INDEXED_VALUE_TYPE_INT, "Double": enumspb.INDEXED_VALUE_TYPE_DOUBLE}
	m := map[string]enumspb.IndexedValueType{}
	for name, typ := range contract.SearchAttributes {
		t, ok := types[typ]
		if !ok {
			panic("devserver: search attribute " + name + " has type " + typ + ", not Keyword, Int or Double")
		}
		m[name] = t
	}
	return m
}()

// Options configure the embedded server.
type Options struct {
	DataDir string // the SQLite file is DataDir/temporal.db
	IP      string // default 127.0.0.1
	Port    int    // frontend gRPC port; default 7233
	// Ports are the other ports the server opens on IP; 0: a free one.
	Ports     Ports
	Namespace string // default "default"
	LogFile   string // server log; default DataDir/temporal.log
	LogLevel  string // default "warn"
	TLS       *TLS   // nil: a plaintext frontend
}

// Ports are the ports of the server's services besides the frontend's gRPC
// port (each one a loopback listener of this process).
type Ports struct {
	HTTP     int // the frontend's HTTP API
	History  int // the history service's gRPC
	Matching int // the matching service's gRPC
	Worker   int // the server's own system worker service's gRPC
}

// TLS serves the frontend over mutual TLS, as a secured cluster does. The
// server's own system worker dials the frontend with the same certificate, so
// CertFile must be valid for client authentication too.
type TLS struct {
	CertFile   string // PEM certificate of the frontend
	KeyFile    string // its PEM private key
	CAFile     string // PEM CA that signed CertFile and every client's certificate
	ServerName string // a name in CertFile, which the system worker verifies
}

// Server is a running embedded Temporal server.
type Server struct {
	srv   temporal.Server
	addr  string
	ports Ports
	lock  *dirlock.Lock
}

// LockFile is the file of the data directory that a running server holds
// an exclusive lock on (internal/dirlock), naming its process: two servers
// on one temporal.db would corrupt each other's shards.
const LockFile = "temporal.lock"

// Ports are the ports the server opened besides the frontend's.
func (s *Server) Ports() Ports { return s.ports }

// Address is the frontend host:port.
func (s *Server) Address() string { return s.addr }

// Stop stops the server and gives its data directory up.
func (s *Server) Stop() {
	s.srv.Stop()
	_ = s.lock.Release() // closing the lock file cannot fail in a way that keeps the lock: the kernel drops it with the file
}

// Start starts a server on the data directory, creating the database on first
// use. Starting again on the same directory resumes every workflow in it.
func Start(o Options) (*Server, error) {
	if o.DataDir == "" {
		return nil, errors.New("devserver: data dir is required")
	}
	o = o.withDefaults()
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("devserver: %w", err)
	}
	lock, err := lockDataDir(o.DataDir)
	if err != nil {
		return nil, err
	}
	srv, err := start(o)
	if err != nil {
		_ = lock.Release() // see Stop
		return nil, err
	}
	srv.lock = lock
	return srv, nil
}

// withDefaults fills what o leaves empty: loopback, port 7233, the default
// namespace, temporal.log in the data dir at level warn.
func (o Options) withDefaults() Options {
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	if o.Port == 0 {
		o.Port = 7233
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.LogFile == "" {
		o.LogFile = filepath.Join(o.DataDir, "temporal.log")
	}
	if o.LogLevel == "" {
		o.LogLevel = "warn"
	}
	return o
}

// lockDataDir takes the data directory for this process, or says which
// process has it.
func lockDataDir(dir string) (*dirlock.Lock, error) {
	lock, err := dirlock.Acquire(dir, LockFile)
	var inUse *dirlock.InUseError
	if errors.As(err, &inUse) {
		return nil, fmt.Errorf("devserver: data directory %s is in use by another clinevo server (%s; lock %s): stop it, or give this one another data directory (--data-dir)",
			dir, inUse.Holder, inUse.Path)
	}
	return lock, err
}

// start starts the server on a data directory this process holds.
func start(o Options) (*Server, error) {
	if err := portFree(o.IP, o.Port); err != nil {
		return nil, err
	}
	sqlCfg, err := database(o)
	if err != nil {
		return nil, err
	}
	ports, err := servicePorts(o)
	if err != nil {
		return nil, err
	}
	hostPort := func(p int) string { return net.JoinHostPort(o.IP, strconv.Itoa(p)) }
	logger := serverlog.WithoutBusy(log.NewZapLogger(log.BuildZapLogger(log.Config{Level: o.LogLevel, OutputFile: o.LogFile})), o.LogFile)
	hosts := map[primitives.ServiceName]static.Hosts{
		primitives.FrontendService: static.SingleLocalHost(hostPort(ports["frontend"])),
		primitives.HistoryService:  static.SingleLocalHost(hostPort(ports["history"])),
		primitives.MatchingService: static.SingleLocalHost(hostPort(ports["matching"])),
		primitives.WorkerService:   static.SingleLocalHost(hostPort(ports["worker"])),
	}
	srv, err := temporal.NewServer(
		temporal.WithConfig(serverConfig(o, sqlCfg, ports)),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(logger),
		temporal.WithDynamicConfigClient(dynamicConfig()),
	)
	if err != nil {
		return nil, fmt.Errorf("devserver: build: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("devserver: start: %w (server log: %s)", err, o.LogFile)
	}
	return &Server{srv: srv, addr: hostPort(o.Port), ports: Ports{HTTP: ports["frontend-http"], History: ports["history"],
		Matching: ports["matching"], Worker: ports["worker"]}}, nil
}

// servicePorts are the ports of the server's services by name: those o
// gives, each checked free, and free ones drawn for the rest.
func servicePorts(o Options) (map[string]int, error) {
	ports := map[string]int{"frontend": o.Port, "history": o.Ports.History, "matching": o.Ports.Matching,
		"worker": o.Ports.Worker, "frontend-http": o.Ports.HTTP}
	var drawn []string // the services whose port is drawn
	for _, svc := range []string{"history", "matching", "worker", "frontend-http"} {
		if p := ports[svc]; p == 0 {
			drawn = append(drawn, svc)
		} else if err := portFree(o.IP, p); err != nil {
			return nil, err
		}
	}
	free, err := freeport.Ports(o.IP, len(drawn))
	if err != nil {
		return nil, err
	}
	for i, svc := range drawn {
		ports[svc] = free[i]
	}
	return ports, nil
}

// serverConfig is the server's static configuration: one SQLite store for
// persistence and visibility, one shard, one cluster, the services on ports,
// archival off, and mutual TLS on the frontend when o asks for it.
func serverConfig(o Options, sqlCfg *config.SQL, ports map[string]int) *config.Config {
	hostPort := func(p int) string { return net.JoinHostPort(o.IP, strconv.Itoa(p)) }
	cfg := &config.Config{}
	cfg.Global.Membership.MaxJoinDuration = 30 * time.Second
	cfg.Global.Membership.BroadcastAddress = o.IP
	cfg.Persistence.DefaultStore = "sqlite"
	cfg.Persistence.VisibilityStore = "sqlite"
	cfg.Persistence.NumHistoryShards = 1
	cfg.Persistence.DataStores = map[string]config.DataStore{"sqlite": {SQL: sqlCfg}}
	cfg.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10, MasterClusterName: "active", CurrentClusterName: "active",
		ClusterInformation: map[string]cluster.ClusterInformation{"active": {
			Enabled: true, InitialFailoverVersion: 1, ClusterID: "clinevo-embedded",
			RPCAddress: hostPort(o.Port), HTTPAddress: hostPort(ports["frontend-http"]),
		}},
	}
	cfg.DCRedirectionPolicy.Policy = "noop"
	service := func(name string) config.Service {
		var s config.Service
		s.RPC.BindOnIP = o.IP
		s.RPC.GRPCPort = ports[name]
		if name == "frontend" {
			s.RPC.HTTPPort = ports["frontend-http"]
		}
		return s
	}
	cfg.Services = map[string]config.Service{"frontend": service("frontend"), "history": service("history"),
		"matching": service("matching"), "worker": service("worker")}
	cfg.Archival.History.State, cfg.Archival.Visibility.State = "disabled", "disabled"
	cfg.NamespaceDefaults.Archival.History.State, cfg.NamespaceDefaults.Archival.Visibility.State = "disabled", "disabled"
	cfg.PublicClient.HostPort = hostPort(o.Port)
	if t := o.TLS; t != nil {
		client := config.ClientTLS{RootCAFiles: []string{t.CAFile}, ServerName: t.ServerName}
		cfg.Global.TLS.Frontend = config.GroupTLS{Client: client, Server: config.ServerTLS{CertFile: t.CertFile, KeyFile: t.KeyFile,
			ClientCAFiles: []string{t.CAFile}, RequireClientAuth: true}}
		cfg.Global.TLS.SystemWorker = config.WorkerTLS{CertFile: t.CertFile, KeyFile: t.KeyFile, Client: client}
	}
	return cfg
}

// dynamicConfig is the server's dynamic configuration: clinevo's choices
// for one process on one shard, each measured. Workflow updates (how the
// CLI steers a stream) need nothing here: server v1.32.1 turns
// frontend.enableUpdateWorkflowExecution on by default.
func dynamicConfig() dynamicconfig.StaticClient {
	return dynamicconfig.StaticClient{
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 200,
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key():                 8192,
		// Every workflow task and child start passes through the transfer
		// queue, whose reader polls at most 20 times a second per shard by
		// default: with one shard that held each task ~45 ms (p50 dispatch
		// 43.8 ms, a 40-episode stream 16.1 s; at 2000: 1.9 ms and 5.2 s, see
		// `clinevo stream timing`). The timer, visibility and outbound queues'
		// limits made no measurable difference and keep their defaults. The
		// compose deployment sets the same in deploy/temporal-dynamicconfig.yaml.
		dynamicconfig.TransferProcessorMaxPollRPS.Key(): 2000,
		// One task-queue partition: a single node gains nothing from the
		// default four (a deployment of several matching nodes keeps them, so
		// compose does not set these; the measured effect was within noise).
		dynamicconfig.MatchingNumTaskqueueReadPartitions.Key():  1,
		dynamicconfig.MatchingNumTaskqueueWritePartitions.Key(): 1,
		// A timer fires no earlier than this past the moment it was set (the
		// history service's timer reader keeps that margin ahead of now; the
		// default is 1 s): every 50 ms backoff of a waiter (durability) took
		// ~1.04 s. One process, one shard and one clock need no margin of a
		// second; at 100 ms it took ~0.1 s. Compose keeps the default.
		dynamicconfig.TimerProcessorMaxTimeShift.Key(): 100 * time.Millisecond,
	}
}

// database prepares the SQLite file: the schema on first use, the namespace and
// search attributes on every start (a no-op when they exist).
func database(o Options) (*config.SQL, error) {
	file := filepath.Join(o.DataDir, "temporal.db")
	// WAL with synchronous=NORMAL survives a killed process (what the crash test
	// does); it trades the last commits on a power cut for a tenfold faster commit.
	// The plugin writes DatabaseName into a "file:" URI as it is, so a "#" or
	// "?" in the data dir would cut the path (and open another server's file).
	c := &config.SQL{PluginName: sqliteplugin.PluginName, DatabaseName: sqliteuri.Path(file),
		ConnectAttributes: map[string]string{"mode": "rwc", "journal_mode": "wal", "synchronous": "normal", "busy_timeout": "10000"},
		// WAL lets readers run beside the writer; one connection would serialise
		// them. It also ends the server's SQLITE_BUSY errors (busy.go), but
		// cost the busiest end-to-end test (cmd/clinevo
		// TestSettingsReachTheActivities) 208.8 s against 125.7 s with four
		// (docs/operations.md, "The embedded server's log").
		MaxConns: 4, MaxIdleConns: 4}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		if err := sqliteschema.SetupSchema(c); err != nil {
			return nil, fmt.Errorf("devserver: create schema in %s: %w", file, err)
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig("active", o.Namespace, false, SearchAttributes)
	if err != nil {
		return nil, fmt.Errorf("devserver: namespace: %w", err)
	}
	if err := sqliteschema.CreateNamespaces(c, ns); err != nil {
		return nil, fmt.Errorf("devserver: namespace: %w", err)
	}
	return c, nil
}

// ErrPortTaken is (errors.Is) the error of Start when a port it was given is
// taken; its text completes "devserver: port N on IP".
var ErrPortTaken = errors.New("is taken")

func portFree(ip string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("devserver: port %d on %s %w (another Temporal server?): %w", port, ip, ErrPortTaken, err)
	}
	return l.Close()
}
