// Package config is the only place viper lives: it reads the configuration file,
// CLINEVO_* environment variables and flags once, into the run settings (the
// settings package, with their defaults) and the deployment of this process
// (data directory, memory store, Temporal, telemetry), and validates both.
package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"

	"github.com/clinevo/clinevo/memory/qdrant"
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
	Temporal  TemporalConfig    `mapstructure:"temporal"`
	Telemetry telemetry.Config  `mapstructure:"telemetry"`
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

// TemporalConfig points at a Temporal frontend, or the embedded one.
type TemporalConfig struct {
	Address   string `mapstructure:"address"`
	Namespace string `mapstructure:"namespace"`
	TaskQueue string `mapstructure:"task_queue"`
}

// Defaults writes every default into v, so every key is known to viper (and
// can be set by environment variable). The run settings' defaults come from
// settings.Default, their only copy.
func Defaults(v *viper.Viper) {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "." // no home directory: the data directory defaults to ./.clinevo
	}
	for k, val := range map[string]any{
		"data_dir": filepath.Join(home, ".clinevo"), "corpus": "builtin:stream",
		"memory.dim": 512, "memory.qdrant.host": "127.0.0.1", "memory.qdrant.port": 6334,
		"memory.qdrant.tls": false, "memory.qdrant.collection": "clinevo_cards", "memory.qdrant.api_key_env": "QDRANT_API_KEY",
		"telemetry.exporter": "off", "telemetry.otlp_endpoint": "", "telemetry.insecure": true, "telemetry.file": "", "telemetry.prompt_text": false,
		"temporal.address": "127.0.0.1:7233", "temporal.namespace": "default", "temporal.task_queue": "clinevo",
	} {
		v.SetDefault(k, val)
	}
	for k, val := range Flatten(settings.Default()) {
		v.SetDefault(k, val)
	}
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
	if err := c.Settings.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if c.Memory.Dim < 16 {
		return fmt.Errorf("config: memory.dim must be at least 16, got %d", c.Memory.Dim)
	}
	if err := c.Telemetry.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}
