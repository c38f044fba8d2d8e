// Command clinevo runs doctor agents through durable streams of simulated
// outpatient episodes. This package is wiring only.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/telemetry"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// app carries the loaded configuration to every command.
type app struct {
	v    *viper.Viper
	file string
	cfg  config.Config
	tel  *telemetry.Telemetry
}

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "clinevo:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	// The benchmarks are registered before the commands are built: their
	// help texts list the benchmarks' corpora, formats and specs.
	registered := engine.RegisterBenchmarks()
	a := &app{v: config.New()}
	root := &cobra.Command{
		Use:           "clinevo",
		Short:         "Doctor agents that learn from experience, on durable streams of simulated outpatients",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// Flags annotated with a config key bind to it when their command runs
			// (viper binds one flag per key, and several commands share keys).
			cmd.Flags().VisitAll(func(f *pflag.Flag) {
				if keys := f.Annotations[configKey]; len(keys) == 1 && f.Changed {
					_ = a.v.BindPFlag(keys[0], f)
				}
			})
			if registered != nil {
				return registered
			}
			cfg, err := config.Load(a.v, a.file)
			if err != nil {
				return err
			}
			a.cfg = cfg
			a.tel, err = telemetry.Setup(cmd.Context(), cfg.Telemetry, "clinevo")
			return err
		},
		PersistentPostRunE: func(cmd *cobra.Command, _ []string) error {
			if a.tel == nil {
				return nil
			}
			return a.tel.Shutdown(context.Background())
		},
	}
	root.PersistentFlags().StringVar(&a.file, "config", "", "config file (YAML, TOML or JSON)")
	root.PersistentFlags().String("data-dir", "", "data directory (default ~/.clinevo)")
	_ = a.v.BindPFlag("data_dir", root.PersistentFlags().Lookup("data-dir"))
	root.PersistentFlags().String("log-level", "", "log level of this process and the Temporal SDK: debug, info, warn or error (default: log.level, info)")
	_ = a.v.BindPFlag("log.level", root.PersistentFlags().Lookup("log-level"))
	root.AddCommand(&cobra.Command{Use: "version", Short: "Print the version", Run: func(cmd *cobra.Command, _ []string) {
		fmt.Fprintln(cmd.OutOrStdout(), "clinevo", version)
	}})
	root.AddCommand(a.corpusCmd(), a.episodeCmd(), a.devCmd(), a.workerCmd(), a.streamCmd(), a.memoryCmd(), a.runsCmd(), a.demoCmd(), a.experimentCmd(), a.reportCmd())
	root.AddCommand(a.viewCmd())
	root.AddCommand(a.rolesCmd())
	a.addCheckRoles(root)
	a.addPlan(root)
	root.AddCommand(a.exportCmd())
	a.addRaiseBudget(root)
	return root
}

// configKey annotates a command flag with the config key it sets.
const configKey = "clinevo/config-key"

// backendFlag adds --memory (local or qdrant) to a command.
func backendFlag(fs *pflag.FlagSet) {
	fs.String("memory", "", "memory backend: local or qdrant (default: memory.backend)")
	bindKey(fs, "memory", "memory.backend")
}

// bindKey makes a defined flag set a configuration key when it is given.
func bindKey(fs *pflag.FlagSet, name, key string) {
	// The flag exists (defined by the caller), so the annotation cannot fail.
	_ = fs.SetAnnotation(name, configKey, []string{key})
}

// profileHelp is the --profile flag's help: the registered benchmarks
// (newRoot registers them before it builds the commands).
func profileHelp() string {
	return "benchmark profile: " + strings.Join(bench.Names(), ", ") + " (default: profile)"
}
