// Command clinevo runs doctor agents through durable streams of simulated
// outpatient episodes. This package is wiring only.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/internal/buildinfo"
	"github.com/clinevo/clinevo/telemetry"
)

// version is set at build time with -ldflags "-X main.version=..."; empty:
// the module version and VCS stamp Go records in the binary (buildinfo.Line).
var version = ""

// app carries the loaded configuration to every command.
type app struct {
	set  bench.Set      // the build's benchmarks (engine.Benchmarks)
	lib  corpus.Library // reads cases with what they add
	v    *viper.Viper
	file string
	cfg  config.Config
	tel  *telemetry.Telemetry
}

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "clinevo:", err)
		os.Exit(exitCode(err))
	}
}

// Exit statuses: bad input (a flag, an argument, a config or spec that does
// not validate) is 2, any failure at run time 1.
const (
	exitFailure  = 1
	exitBadInput = 2
)

// inputError is bad input: what the user gave cannot work as given.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// badInput marks err (when not nil) as bad input: exit status 2.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return inputError{err}
}

// exitCode is the exit status of a command that returned err.
func exitCode(err error) int {
	var in inputError
	// cobra's own "unknown command" error is untyped; a data dir where
	// nothing ran is a mistyped --data-dir; a run ID already used must be
	// changed (or the run restarted); a restart or resume of a run that
	// runs or has finished names the wrong run, as a terminate of one that
	// has ended does.
	if errors.As(err, &in) || strings.HasPrefix(err.Error(), "unknown command ") || errors.Is(err, engine.ErrNoData) ||
		errors.Is(err, engine.ErrRunExists) || errors.Is(err, engine.ErrFinished) || errors.Is(err, engine.ErrRunning) {
		return exitBadInput
	}
	return exitFailure
}

func newRoot() *cobra.Command {
	// The benchmarks are known before the commands are built: their help
	// texts list the benchmarks' corpora, formats and specs.
	set, registered := engine.Benchmarks()
	a := &app{set: set, lib: corpus.NewLibrary(set), v: config.New(set)}
	root := &cobra.Command{
		Use:   "clinevo",
		Short: "Doctor agents that learn from experience, on durable streams of simulated outpatients",
		Long: `Doctor agents that learn from experience, on durable streams of simulated outpatients.

Exit status: 0 on success; 2 for bad input (an unknown command or flag, a
missing or malformed argument, a configuration or spec that does not
validate, a data directory where nothing ran, a run ID that names a run
already, a restart of a run that runs or has finished); 1 for a failure at
run time (Temporal or a store unreachable, a run that failed).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if registered != nil {
				return registered
			}
			if err := a.load(cmd); err != nil {
				return badInput(err)
			}
			var err error
			a.tel, err = telemetry.Setup(cmd.Context(), a.cfg.Telemetry, "clinevo")
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
	clientFlags(root.PersistentFlags(), a.v)
	root.AddCommand(versionCmd())
	root.AddCommand(a.corpusCmd(), a.episodeCmd(), a.devCmd(), a.workerCmd(), a.streamCmd(), a.memoryCmd(), a.runsCmd(), a.demoCmd(), a.experimentCmd(), a.reportCmd())
	root.AddCommand(a.viewCmd(), docsCmd())
	root.AddCommand(a.rolesCmd(), a.exportCmd(), a.evaluationCmd(), a.compareCmd())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	finish(root)
	return root
}

// finish applies to every command what holds for all: examples in its help,
// argument errors are bad input, and bool flags show as --flag, not --flag[=true|false].
func finish(cmd *cobra.Command) {
	if cmd.Example == "" {
		cmd.Example = examples[strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")]
	}
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error { return badInput(args(c, a)) }
	}
	cmd.InitDefaultHelpFlag()
	for _, fs := range []*pflag.FlagSet{cmd.LocalNonPersistentFlags(), cmd.PersistentFlags(), cmd.Flags()} {
		fs.VisitAll(plainBool)
	}
	for _, c := range cmd.Commands() {
		finish(c)
	}
}

// plainBool hides that a bool flag's value is a bool flag from pflag's help
// renderer (v1.1.0 writes those as --name[=true|false]); the flag still
// parses as one: pflag gave it NoOptDefVal "true" when it was defined.
func plainBool(f *pflag.Flag) {
	if f.Value.Type() == "bool" && f.NoOptDefVal == "true" {
		if _, done := f.Value.(plainBoolValue); !done {
			f.Value = plainBoolValue{f.Value}
		}
	}
}

type plainBoolValue struct{ pflag.Value }

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print clinevo's version: the module version, the commit and its time, and the Go version",
		Example: "  clinevo version",
		Args:    cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "clinevo", buildinfo.Line(version))
		},
	}
}

// clientFlags are the flags of the Temporal client every command that talks
// to Temporal uses. Each sets its configuration key; without --address the
// address comes from the environment, the config file, then the DevFile that
// a running `clinevo dev` wrote in the data directory, then 127.0.0.1:7233.
func clientFlags(fs *pflag.FlagSet, v *viper.Viper) {
	for _, f := range []struct{ name, key, help string }{
		{"address", "temporal.address", "Temporal frontend host:port (default: temporal.address, else the address clinevo dev wrote in the data dir, else 127.0.0.1:7233)"},
		{"namespace", "temporal.namespace", "Temporal namespace (default: temporal.namespace, default)"},
		{"tls-ca-file", "temporal.tls.ca_file", "PEM CA of the frontend's certificate (default: temporal.tls.ca_file)"},
		{"tls-cert-file", "temporal.tls.cert_file", "PEM client certificate for mutual TLS (default: temporal.tls.cert_file)"},
		{"tls-key-file", "temporal.tls.key_file", "PEM key of --tls-cert-file (default: temporal.tls.key_file)"},
		{"tls-server-name", "temporal.tls.server_name", "name to verify the frontend's certificate against (default: temporal.tls.server_name)"},
		{"api-key-env", "temporal.api_key_env", "environment variable holding a Temporal API key (default: temporal.api_key_env)"},
	} {
		fs.String(f.name, "", f.help)
		_ = v.BindPFlag(f.key, fs.Lookup(f.name)) // the flag was just defined
	}
}

// load reads the configuration for cmd: flags, environment, config file,
// and the address a running `clinevo dev` wrote in the data dir.
func (a *app) load(cmd *cobra.Command) error {
	cfg, err := config.LoadFlags(a.v, a.file, a.set, cmd.Flags())
	if err != nil {
		return err
	}
	a.cfg = cfg
	return nil
}

// backendFlag adds --memory-backend (local or qdrant) to a command, and
// --memory, its name before 0.23, as a hidden deprecated alias.
func backendFlag(fs *pflag.FlagSet) {
	fs.String("memory-backend", "", "memory backend: local or qdrant (default: memory.backend)")
	config.BindKey(fs, "memory-backend", "memory.backend")
	fs.String("memory", "", "memory backend")
	config.BindKey(fs, "memory", "memory.backend")
	deprecate(fs, "memory", "memory-backend")
}

// deprecate hides the old name of a renamed flag; using it still works and
// prints that the new name replaces it.
func deprecate(fs *pflag.FlagSet, old, now string) {
	_ = fs.MarkDeprecated(old, "use --"+now) // the flag exists (defined by the caller)
}

// profileHelp is the --profile flag's help: the build's benchmarks.
func (a *app) profileHelp() string {
	return "benchmark profile: " + strings.Join(a.set.Names(), ", ") + " (default: profile)"
}
