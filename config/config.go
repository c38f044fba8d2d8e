// Package config is the only place viper lives: it reads the configuration file,
// CLINEVO_* environment variables and flags once, into the run settings (the
// settings package, with their defaults) and the deployment of this process
// (data directory, memory store, Temporal, telemetry), and validates both.
package config

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/results/postgres"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/telemetry"
)

// Config is clinevo's whole configuration: the run settings and this process's
// deployment.
type Config struct {
	DataDir string `mapstructure:"data_dir"`
	Corpus  string `mapstructure:"corpus"`
	// Settings are the run settings every stream, evaluation and experiment
	// started from this configuration carries (profile, episode, scoring,
	// evolver, memory.k and memory.backend, roles).
	Settings  settings.Settings `mapstructure:"-"`
	Memory    MemoryStore       `mapstructure:"memory"`
	Results   ResultsConfig     `mapstructure:"results"`
	Temporal  TemporalConfig    `mapstructure:"temporal"`
	Telemetry telemetry.Config  `mapstructure:"telemetry"`
	Log       LogConfig         `mapstructure:"log"`
}

// LogConfig is this process's logging: its own lines and the Temporal SDK's
// (workflows' and activities' logs reach a worker's stderr through it).
type LogConfig struct {
	Level string `mapstructure:"level"` // debug | info | warn | error
}

// LogLevels are the levels log.level takes.
var LogLevels = []string{"debug", "info", "warn", "error"}

// Logger writes this process's log lines (and, given to the Temporal SDK,
// its workflows' and activities') to w at the level l names.
func (l LogConfig) Logger(w io.Writer) *slog.Logger {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[l.Level]
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// MemoryStore is where this process keeps cards: the embedder dimension and the
// Qdrant connection (the backend choice itself is a run setting, memory.backend).
type MemoryStore struct {
	Dim    int          `mapstructure:"dim"`
	Qdrant QdrantConfig `mapstructure:"qdrant"`
}

// QdrantConfig points at a Qdrant server; the API key comes from the
// environment variable APIKeyEnv.
type QdrantConfig struct {
	Host       string `mapstructure:"host"`
	Port       int    `mapstructure:"port"`
	TLS        bool   `mapstructure:"tls"`
	Collection string `mapstructure:"collection"`
	APIKeyEnv  string `mapstructure:"api_key_env"`
}

// QdrantOptions returns the Qdrant connection when the backend is qdrant, else nil.
func (c Config) QdrantOptions() *qdrant.Config {
	if c.Settings.Memory.Backend != "qdrant" {
		return nil
	}
	q := c.Memory.Qdrant
	return &qdrant.Config{Host: q.Host, Port: q.Port, UseTLS: q.TLS, Collection: q.Collection, APIKey: os.Getenv(q.APIKeyEnv)}
}

// ResultsConfig selects the results store: the SQLite file under the data
// directory, or a PostgreSQL database every worker and the CLI share.
type ResultsConfig struct {
	Backend  string         `mapstructure:"backend"` // sqlite | postgres
	Postgres PostgresConfig `mapstructure:"postgres"`
}

// PostgresConfig points at a PostgreSQL database. The DSN holds no password:
// it comes from the environment variable PasswordEnv, like a model's key.
type PostgresConfig struct {
	DSN         string `mapstructure:"dsn"`
	PasswordEnv string `mapstructure:"password_env"`
}

// PostgresOptions returns the results database when the backend is postgres,
// else nil.
func (c Config) PostgresOptions() *postgres.Config {
	if c.Results.Backend != "postgres" {
		return nil
	}
	p := c.Results.Postgres
	o := &postgres.Config{DSN: p.DSN}
	if p.PasswordEnv != "" {
		o.Password = os.Getenv(p.PasswordEnv)
	}
	return o
}

// TemporalConfig points at a Temporal frontend, or the embedded one.
type TemporalConfig struct {
	Address   string      `mapstructure:"address"`
	Namespace string      `mapstructure:"namespace"`
	TaskQueue string      `mapstructure:"task_queue"`
	TLS       TemporalTLS `mapstructure:"tls"`
	// APIKeyEnv names the environment variable holding an API key (Temporal
	// Cloud); empty: no key.
	APIKeyEnv string `mapstructure:"api_key_env"`
	// Source is where Address came from when not from the configuration:
	// the DevFile of a running `clinevo dev` (see UseDev); empty otherwise.
	Source string `mapstructure:"-"`
}

// TemporalTLS secures the connection to the frontend; all empty: plaintext.
type TemporalTLS struct {
	CAFile     string `mapstructure:"ca_file"`     // PEM CA of the server's certificate; empty: the system's roots
	CertFile   string `mapstructure:"cert_file"`   // PEM client certificate (mutual TLS), with KeyFile
	KeyFile    string `mapstructure:"key_file"`    // its PEM private key
	ServerName string `mapstructure:"server_name"` // the name to verify the server's certificate against; empty: the address's host
}

// Defaults writes every default into v, so every key is known to viper (and
// can be set by environment variable). The run settings' defaults come from
// settings.Default and the build's benchmarks (bench.Set.DefaultSettings),
// their only copies.
func Defaults(v *viper.Viper, set bench.Set) {
	for k, val := range defaults(set) {
		v.SetDefault(k, val)
	}
}

// defaults maps every configuration key to its default.
func defaults(set bench.Set) map[string]any {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "." // no home directory: the data directory defaults to ./.clinevo
	}
	d := map[string]any{
		"data_dir": filepath.Join(home, ".clinevo"), "corpus": "builtin:stream",
		"memory.dim": 512, "memory.qdrant.host": "127.0.0.1", "memory.qdrant.port": 6334,
		"memory.qdrant.tls": false, "memory.qdrant.collection": "clinevo_cards", "memory.qdrant.api_key_env": "QDRANT_API_KEY",
		"telemetry.exporter": "off", "telemetry.otlp_endpoint": "", "telemetry.insecure": true, "telemetry.file": "", "telemetry.prompt_text": false,
		"temporal.address": "127.0.0.1:7233", "temporal.namespace": "default", "temporal.task_queue": contract.TaskQueue,
		"temporal.tls.ca_file": "", "temporal.tls.cert_file": "", "temporal.tls.key_file": "", "temporal.tls.server_name": "",
		"temporal.api_key_env": "", "results.backend": "sqlite", "results.postgres.dsn": "postgres://clinevo@127.0.0.1:5432/clinevo",
		"results.postgres.password_env": "PGPASSWORD", "log.level": "info",
	}
	for k, val := range Flatten(set.DefaultSettings()) {
		d[k] = val
	}
	// Settings leave evolver.matts out of their JSON while it is unset, so
	// the specs of runs without MaTTS read as before: the key is known here.
	d["evolver.matts.k"] = 0
	return d
}

// Flatten lists the leaves of settings as dotted configuration keys
// ("episode.max_turns", "roles.doctor.model"); lists stay whole.
func Flatten(s settings.Settings) map[string]any {
	// Settings are plain data (numbers, strings, maps, slices and a text
	// duration): Marshal and Unmarshal of them cannot fail.
	b, _ := json.Marshal(s)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	out := map[string]any{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			for k, e := range sub {
				walk(prefix+"."+k, e)
			}
			return
		}
		out[prefix] = v
	}
	for k, v := range m {
		walk(k, v)
	}
	return out
}

// New returns a viper with the defaults of a build that plays the
// benchmarks of set and CLINEVO_* environment binding
// (CLINEVO_EPISODE_MAX_TURNS sets episode.max_turns).
func New(set bench.Set) *viper.Viper {
	v := viper.New()
	Defaults(v, set)
	v.SetEnvPrefix("CLINEVO")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	return v
}

// Load reads an optional config file into v (made by New with the same set)
// and returns the Config, validated against the benchmarks of set.
func Load(v *viper.Viper, file string, set bench.Set) (Config, error) {
	if file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return Config{}, fmt.Errorf("config %s: %w", file, err)
		}
		if err := knownKeys(file, set); err != nil {
			return Config{}, err
		}
	}
	if err := checkTypes(v, file, set); err != nil {
		return Config{}, err
	}
	var c Config
	if err := v.Unmarshal(&c); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	hooks := viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(mapstructure.TextUnmarshallerHookFunc(),
		mapstructure.StringToSliceHookFunc(",")))
	if err := v.Unmarshal(&c.Settings, hooks); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if strings.HasPrefix(c.DataDir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return Config{}, fmt.Errorf("config: data_dir %s: %w", c.DataDir, err)
		}
		c.DataDir = filepath.Join(home, c.DataDir[2:])
	}
	if err := c.Validate(set); err != nil {
		return Config{}, err
	}
	return c, nil
}

// knownKeys refuses a config file with a key clinevo does not read (a typo,
// or a key renamed since the file was written): it would be ignored silently.
// Price categories and role names are checked by settings validation
// (bench.Set.ValidateSettings), which names them.
func knownKeys(file string, set bench.Set) error {
	known := defaults(set)
	f := viper.New()
	f.SetConfigFile(file)
	if err := f.ReadInConfig(); err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	var unknown []string
	for _, k := range f.AllKeys() {
		role, _, _ := strings.Cut(strings.TrimPrefix(k, "roles."), ".")
		if strings.HasPrefix(k, "roles.") && !slices.Contains(set.Roles(), role) {
			continue // bench.Set.ValidateSettings names an unknown role
		}
		if _, ok := known[k]; !ok && !strings.HasPrefix(k, "episode.prices.") {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("config %s: unknown key %s (clinevo.example.yaml lists every key)", file, strings.Join(unknown, ", "))
	}
	return nil
}

// Validate checks every section, the run settings against the benchmarks
// of set, and names the offending key.
func (c Config) Validate(set bench.Set) error {
	if c.DataDir == "" {
		return fmt.Errorf("config: data_dir is required")
	}
	if err := set.ValidateSettings(c.Settings); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := settings.StoreDimRange.Check("memory.dim", c.Memory.Dim); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := settings.PortRange.Check("memory.qdrant.port", c.Memory.Qdrant.Port); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := c.Results.validate(); err != nil {
		return err
	}
	if err := c.Temporal.validate(); err != nil {
		return err
	}
	if err := c.Telemetry.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if !slices.Contains(LogLevels, c.Log.Level) {
		return fmt.Errorf("config: log.level (or --log-level) %q, want one of %s", c.Log.Level, strings.Join(LogLevels, ", "))
	}
	return nil
}

func (r ResultsConfig) validate() error {
	if r.Backend != "sqlite" && r.Backend != "postgres" {
		return fmt.Errorf("config: results.backend %q, want sqlite or postgres", r.Backend)
	}
	if r.Backend == "postgres" && r.Postgres.DSN == "" {
		return fmt.Errorf("config: results.postgres.dsn is required when results.backend is postgres")
	}
	// Checked whatever the backend: a password in a config file is a leak
	// even while the file points elsewhere.
	if err := postgres.CheckDSN(r.Postgres.DSN); err != nil {
		return fmt.Errorf("config: results.postgres.dsn: %w", err)
	}
	return nil
}

func (t TemporalConfig) validate() error {
	if t.Namespace == "" {
		return fmt.Errorf("config: temporal.namespace is required")
	}
	if (t.TLS.CertFile == "") != (t.TLS.KeyFile == "") {
		return fmt.Errorf("config: temporal.tls.cert_file and temporal.tls.key_file go together (a client certificate and its key)")
	}
	return nil
}
