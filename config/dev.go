package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"
)

// DevFile is the file under the data directory where `clinevo dev` writes the
// frontend it serves, so every other command run on the same data directory
// finds it without flags.
const DevFile = "dev.json"

// DevEndpoint is what DevFile holds.
type DevEndpoint struct {
	Address   string `json:"address"`
	Namespace string `json:"namespace"`
	PID       int    `json:"pid"`
}

// WriteDev records e in dataDir's DevFile (atomically: a reader never sees
// half a file).
func WriteDev(dataDir string, e DevEndpoint) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dataDir, DevFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	return nil
}

// RemoveDev removes dataDir's DevFile when it still names address (a second
// `clinevo dev` on the same directory may have replaced it).
func RemoveDev(dataDir, address string) error {
	path := filepath.Join(dataDir, DevFile)
	e, err := readDev(path)
	if err != nil || e.Address != address {
		return nil // nothing of ours to remove
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("config: remove %s: %w", path, err)
	}
	return nil
}

func readDev(path string) (DevEndpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return DevEndpoint{}, err
	}
	var e DevEndpoint
	if err := json.Unmarshal(b, &e); err != nil {
		return DevEndpoint{}, fmt.Errorf("config: %s: %w", path, err)
	}
	if e.Address == "" {
		return DevEndpoint{}, fmt.Errorf("config: %s: no address", path)
	}
	return e, nil
}

// Explicit says whether key was given by the config file or its CLINEVO_*
// environment variable (a command-line flag is the caller's to know: viper
// does not tell a changed flag from a default).
func Explicit(v *viper.Viper, key string) bool {
	env := "CLINEVO_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
	if _, ok := os.LookupEnv(env); ok {
		return true
	}
	return v.InConfig(key)
}

// UseDev points c.Temporal at the frontend a running `clinevo dev` recorded
// in c.DataDir, for the address and namespace not given explicitly: the order
// is flag, environment, config file, DevFile, default. No DevFile: c is
// unchanged. A malformed DevFile is an error that names it.
func (c *Config) UseDev(addressGiven, namespaceGiven bool) error {
	if addressGiven && namespaceGiven {
		return nil
	}
	path := filepath.Join(c.DataDir, DevFile)
	e, err := readDev(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !addressGiven {
		c.Temporal.Address, c.Temporal.Source = e.Address, path
		// The embedded server is plaintext on loopback: TLS and keys meant
		// for a remote cluster do not apply to it.
		c.Temporal.TLS, c.Temporal.APIKeyEnv = TemporalTLS{}, ""
	}
	if !namespaceGiven && e.Namespace != "" {
		c.Temporal.Namespace = e.Namespace
	}
	return nil
}
