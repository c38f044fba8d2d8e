// Package config is the only place viper lives: a typed Config with defaults,
// loaded from a file, CLINEVO_* environment variables and flags, and validated.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/results/postgres"
	"github.com/clinevo/clinevo/telemetry"
)

// Config is clinevo's whole configuration.
type Config struct {
	DataDir   string           `mapstructure:"data_dir"`
	Corpus    string           `mapstructure:"corpus"`
	Episode   EpisodeConfig    `mapstructure:"episode"`
	Scoring   ScoringConfig    `mapstructure:"scoring"`
	Evolver   EvolverConfig    `mapstructure:"evolver"`
	Memory    MemoryConfig     `mapstructure:"memory"`
	Results   ResultsConfig    `mapstructure:"results"`
	Temporal  TemporalConfig   `mapstructure:"temporal"`
	Roles     llm.Roles        `mapstructure:"roles"`
	Telemetry telemetry.Config `mapstructure:"telemetry"`
}

// EpisodeConfig mirrors episode.Config.
type EpisodeConfig struct {
	MaxTurns     int                `mapstructure:"max_turns"`
	MaxTests     int                `mapstructure:"max_tests"`
	AllowMDT     bool               `mapstructure:"allow_mdt"`
	BaseTurnCost float64            `mapstructure:"base_turn_cost"`
	Prices       map[string]float64 `mapstructure:"prices"`
}

// ScoringConfig mirrors grader.Weights.
type ScoringConfig struct {
	Diagnosis float64 `mapstructure:"w_diagnosis"`
	Evidence  float64 `mapstructure:"w_evidence"`
	Plan      float64 `mapstructure:"w_plan"`
	Lambda    float64 `mapstructure:"lambda"`
	Mu        float64 `mapstructure:"mu"`
	PassAt    float64 `mapstructure:"pass_at"`
	US        float64 `mapstructure:"u_s"`
	UT        float64 `mapstructure:"u_t"`
	UE        float64 `mapstructure:"u_e"`
	UR        float64 `mapstructure:"u_r"`
	MatchAt   float64 `mapstructure:"match_at"`
	SupportAt float64 `mapstructure:"support_at"`
}

// EvolverConfig mirrors evolver.Config.
type EvolverConfig struct {
	Mode         string  `mapstructure:"mode"`
	RuleBudget   int     `mapstructure:"rule_budget"`
	MemoryBudget int     `mapstructure:"memory_budget"`
	SuccessCards bool    `mapstructure:"success_cards"`
	KeepReuse    float64 `mapstructure:"keep_reuse"`
	KeepAge      float64 `mapstructure:"keep_age"`
}

// MemoryConfig selects the card store.
type MemoryConfig struct {
	Backend string       `mapstructure:"backend"` // local | qdrant
	K       int          `mapstructure:"k"`
	Dim     int          `mapstructure:"dim"`
	Qdrant  QdrantConfig `mapstructure:"qdrant"`
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
	if c.Memory.Backend != "qdrant" {
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
}

// TemporalTLS secures the connection to the frontend; all empty: plaintext.
type TemporalTLS struct {
	CAFile     string `mapstructure:"ca_file"`     // PEM CA of the server's certificate; empty: the system's roots
	CertFile   string `mapstructure:"cert_file"`   // PEM client certificate (mutual TLS), with KeyFile
	KeyFile    string `mapstructure:"key_file"`    // its PEM private key
	ServerName string `mapstructure:"server_name"` // the name to verify the server's certificate against; empty: the address's host
}

// Defaults writes every default into v, so every key is known to viper (and
// can be set by environment variable).
func Defaults(v *viper.Viper) {
	e := episode.DefaultConfig()
	w := grader.DefaultWeights()
	ev := evolver.DefaultConfig()
	home, _ := os.UserHomeDir()
	set := map[string]any{
		"data_dir": filepath.Join(home, ".clinevo"), "corpus": "builtin:stream",
		"episode.max_turns": e.MaxTurns, "episode.max_tests": e.MaxTests, "episode.allow_mdt": e.AllowMDT,
		"episode.base_turn_cost": e.BaseTurnCost, "episode.prices": map[string]float64{},
		"scoring.w_diagnosis": w.Diagnosis, "scoring.w_evidence": w.Evidence, "scoring.w_plan": w.Plan,
		"scoring.lambda": w.Lambda, "scoring.mu": w.Mu, "scoring.pass_at": w.PassAt, "scoring.u_s": w.US,
		"scoring.u_t": w.UT, "scoring.u_e": w.UE, "scoring.u_r": w.UR, "scoring.match_at": w.MatchAt, "scoring.support_at": w.SupportAt,
		"evolver.mode": ev.Mode, "evolver.rule_budget": ev.RuleBudget, "evolver.memory_budget": ev.MemoryBudget,
		"evolver.success_cards": ev.SuccessCards, "evolver.keep_reuse": ev.KeepReuse, "evolver.keep_age": ev.KeepAge,
		"memory.backend": "local", "memory.k": 5, "memory.dim": 512, "memory.qdrant.host": "127.0.0.1", "memory.qdrant.port": 6334,
		"memory.qdrant.tls": false, "memory.qdrant.collection": "clinevo_cards", "memory.qdrant.api_key_env": "QDRANT_API_KEY",
		"telemetry.exporter": "off", "telemetry.otlp_endpoint": "", "telemetry.insecure": true, "telemetry.file": "", "telemetry.prompt_text": false,
		"temporal.address": "127.0.0.1:7233", "temporal.namespace": "default", "temporal.task_queue": "clinevo",
		"temporal.tls.ca_file": "", "temporal.tls.cert_file": "", "temporal.tls.key_file": "", "temporal.tls.server_name": "",
		"temporal.api_key_env": "", "results.backend": "sqlite", "results.postgres.dsn": "postgres://clinevo@127.0.0.1:5432/clinevo",
		"results.postgres.password_env": "PGPASSWORD",
	}
	for k, val := range set {
		v.SetDefault(k, val)
	}
	for _, role := range llm.RoleNames {
		temp, cache := 0.0, false
		switch role {
		case "patient":
			temp = 0.7
		case "doctor", "evolver":
			temp = 0.2
		case "judge", "exam":
			cache = true
		}
		for k, val := range map[string]any{"backend": llm.Builtin, "base_url": "", "model": "", "temperature": temp, "top_p": 1.0,
			"max_tokens": 1024, "timeout": "60s", "concurrency": 4, "api_key_env": "OPENAI_API_KEY", "api_key_file": "",
			"json_mode": true, "cache": cache, "price_prompt": 0.0, "price_completion": 0.0, "dim": 0} {
			v.SetDefault("roles."+role+"."+k, val)
		}
	}
}

// New returns a viper with defaults and CLINEVO_* environment binding
// (CLINEVO_EPISODE_MAX_TURNS sets episode.max_turns).
func New() *viper.Viper {
	v := viper.New()
	Defaults(v)
	v.SetEnvPrefix("CLINEVO")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	return v
}

// Load reads an optional config file into v and returns the validated Config.
func Load(v *viper.Viper, file string) (Config, error) {
	if file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return Config{}, fmt.Errorf("config %s: %w", file, err)
		}
	}
	var c Config
	if err := v.Unmarshal(&c); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if strings.HasPrefix(c.DataDir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return Config{}, fmt.Errorf("config: data_dir %s: %w", c.DataDir, err)
		}
		c.DataDir = filepath.Join(home, c.DataDir[2:])
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate checks every section and names the offending key.
func (c Config) Validate() error {
	if c.DataDir == "" {
		return fmt.Errorf("config: data_dir is required")
	}
	if err := c.EpisodeConfig().Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	for k, p := range c.Episode.Prices {
		if _, ok := catalog.Prices[catalog.Category(k)]; !ok {
			return fmt.Errorf("config: episode.prices.%s: unknown price category", k)
		}
		if p < 0 {
			return fmt.Errorf("config: episode.prices.%s: price must not be negative", k)
		}
	}
	if err := c.Weights().Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := c.EvolverConfig().Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if c.Memory.Backend != "local" && c.Memory.Backend != "qdrant" {
		return fmt.Errorf("config: memory.backend %q, want local or qdrant", c.Memory.Backend)
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
	if err := c.Roles.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if c.Memory.K < 0 || c.Memory.Dim < 16 {
		return fmt.Errorf("config: memory.k must be >= 0 and memory.dim >= 16")
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

// EpisodeConfig converts to the environment's config.
func (c Config) EpisodeConfig() episode.Config {
	prices := map[catalog.Category]float64{}
	for k, v := range catalog.Prices {
		prices[k] = v
	}
	for k, v := range c.Episode.Prices {
		prices[catalog.Category(k)] = v
	}
	return episode.Config{MaxTurns: c.Episode.MaxTurns, MaxTests: c.Episode.MaxTests, AllowMDT: c.Episode.AllowMDT,
		BaseTurnCost: c.Episode.BaseTurnCost, Prices: prices}
}

// Weights converts to the manager's weights.
func (c Config) Weights() grader.Weights {
	s := c.Scoring
	return grader.Weights{Diagnosis: s.Diagnosis, Evidence: s.Evidence, Plan: s.Plan, Lambda: s.Lambda, Mu: s.Mu, PassAt: s.PassAt,
		US: s.US, UT: s.UT, UE: s.UE, UR: s.UR, MatchAt: s.MatchAt, SupportAt: s.SupportAt}
}

// EvolverConfig converts to the evolver's config.
func (c Config) EvolverConfig() evolver.Config {
	e := c.Evolver
	cfg := evolver.DefaultConfig()
	cfg.Mode, cfg.RuleBudget, cfg.MemoryBudget, cfg.SuccessCards, cfg.KeepReuse, cfg.KeepAge = e.Mode, e.RuleBudget, e.MemoryBudget, e.SuccessCards, e.KeepReuse, e.KeepAge
	return cfg
}
