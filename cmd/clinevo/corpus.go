package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

func (a *app) corpusCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "corpus", Short: "Validate, generate, import and summarise case corpora"}
	var strict, validJSON bool
	validate := &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a native JSONL corpus; errors name the line and field",
		Example: `  clinevo corpus validate cases.jsonl
  clinevo corpus validate cases.jsonl --strict --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := corpus.Load(args[0])
			if err != nil {
				return badInput(err)
			}
			if strict {
				if err := corpus.CheckAvailability(c); err != nil {
					return badInput(err)
				}
			}
			if validJSON {
				return printJSON(cmd, map[string]any{"corpus": args[0], "cases": len(c.Cases), "valid": true, "schema_version": clinic.CaseSchemaVersion})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d cases, all valid (schema_version %d)\n", args[0], len(c.Cases), clinic.CaseSchemaVersion)
			return nil
		},
	}
	validate.Flags().BoolVar(&strict, "strict", false, "also fail when whether a test returns a result depends on the condition")
	validate.Flags().BoolVar(&validJSON, "json", false, "print the count as JSON (an invalid corpus is an error, exit status 2)")
	cmd.AddCommand(validate)
	var seed uint64
	var version int
	var out string
	var benchmark string
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Write the synthetic corpus splits (stream, heldout, cross, update; with --benchmark that benchmark's own splits) as JSONL",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("corpus gen: --out DIR is required")
			}
			var splits map[string][]clinic.Case
			names := synth.Splits
			switch {
			case benchmark != "":
				var err error
				if splits, names, err = corpus.BenchSplits(benchmark, version, seed); err != nil {
					return fmt.Errorf("corpus gen: %w", err)
				}
			default:
				var err error
				if splits, err = synth.GenerateVersion(version, seed); err != nil {
					return fmt.Errorf("corpus gen: %w", err)
				}
			}
			for _, name := range names {
				path := filepath.Join(out, name+".jsonl")
				if err := corpus.WriteJSONL(path, splits[name]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d cases\n", path, len(splits[name]))
			}
			return nil
		},
	}
	gen.Flags().Uint64Var(&seed, "seed", corpus.DefaultSeed, "generator seed")
	gen.Flags().IntVar(&version, "version", synth.Default, "generator version (1, 2 or 3)")
	gen.Flags().StringVar(&out, "out", "", "output directory")
	gen.Flags().StringVar(&benchmark, "benchmark", "", "write this benchmark's built-in corpus instead: "+strings.Join(corpus.BenchSplitOwners(), ", "))
	cmd.AddCommand(gen)
	var against string
	var statsJSON bool
	stats := &cobra.Command{
		Use:   "stats REF",
		Short: "Summarise a corpus (a JSONL file or builtin:[v<version>:]<split>[@seed])",
		Example: `  clinevo corpus stats builtin:stream
  clinevo corpus stats builtin:heldout --against builtin:stream
  clinevo corpus stats cases.jsonl --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := corpus.Load(args[0])
			if err != nil {
				return badInput(err)
			}
			var b *corpus.Corpus
			if against != "" {
				if b, err = corpus.Load(against); err != nil {
					return badInput(err)
				}
			}
			if statsJSON {
				out := map[string]any{"stats": corpus.StatsOf(c)}
				if b != nil {
					out["overlap"] = corpus.OpeningOverlap(c, b)
				}
				return printJSON(cmd, out)
			}
			corpus.WriteStats(cmd.OutOrStdout(), c)
			if b != nil {
				corpus.WriteOverlap(cmd.OutOrStdout(), c, b)
			}
			return nil
		},
	}
	stats.Flags().StringVar(&against, "against", "", "also report the openings REF shares with this corpus (normalised)")
	stats.Flags().BoolVar(&statsJSON, "json", false, "print the summary as JSON")
	cmd.AddCommand(stats)
	var importOut string
	var skipInvalid bool
	imp := &cobra.Command{
		Use:   "import FORMAT IN",
		Short: "Convert an external corpus to native JSONL",
		Long:  "Convert an external corpus to native JSONL. FORMAT is one of:\n" + formatList(),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if importOut == "" {
				return badInput(fmt.Errorf("corpus import: --out FILE is required"))
			}
			cases, skipped, err := corpus.ImportFile(args[0], args[1], importOut, skipInvalid)
			for _, s := range skipped {
				fmt.Fprintln(cmd.ErrOrStderr(), s)
			}
			if skipInvalid {
				fmt.Fprintf(cmd.ErrOrStderr(), "skipped lines: %d\n", len(skipped))
			}
			var write *corpus.WriteError
			if err != nil && !errors.As(err, &write) {
				return badInput(err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d cases imported from %s\n", importOut, len(cases), args[1])
			return nil
		},
	}
	imp.Flags().StringVar(&importOut, "out", "", "output JSONL file")
	imp.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "agentclinic: import every valid case and list the invalid lines (default: any invalid line fails the import)")
	cmd.AddCommand(imp)
	return cmd
}

// formatList lists the import formats for the command's help.
func formatList() string {
	var b strings.Builder
	for _, f := range corpus.Formats() {
		fmt.Fprintf(&b, "  %-12s %s\n", f.Name, f.Doc)
	}
	return b.String()
}
