package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

func (a *app) corpusCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "corpus", Short: "Validate, generate, import and summarise case corpora"}
	cmd.AddCommand(a.corpusValidateCmd(), a.corpusGenCmd(), a.corpusStatsCmd(), a.corpusImportCmd())
	return cmd
}

func (a *app) corpusValidateCmd() *cobra.Command {
	var strict, asJSON bool
	cmd := &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a native JSONL corpus; errors name the line and field",
		Example: `  clinevo corpus validate cases.jsonl
  clinevo corpus validate cases.jsonl --strict --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.lib.Load(args[0])
			if err != nil {
				return badInput(err)
			}
			if strict {
				if err := corpus.CheckAvailability(c); err != nil {
					return badInput(err)
				}
			}
			if asJSON {
				return printJSON(cmd, map[string]any{"corpus": args[0], "cases": len(c.Cases), "valid": true, "schema_version": clinic.CaseSchemaVersion})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d cases, all valid (schema_version %d)\n", args[0], len(c.Cases), clinic.CaseSchemaVersion)
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "also fail when whether a test returns a result depends on the condition")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the count as JSON (an invalid corpus is an error, exit status 2)")
	return cmd
}

func (a *app) corpusGenCmd() *cobra.Command {
	var seed uint64
	var version int
	var out, benchmark string
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Write the synthetic corpus splits (stream, heldout, cross, update; with --benchmark that benchmark's own splits) as JSONL",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("corpus gen: --out DIR is required")
			}
			var splits map[string][]clinic.Case
			var err error
			names := synth.Splits
			if benchmark != "" {
				splits, names, err = a.lib.BenchSplits(benchmark, version, seed)
			} else {
				splits, err = synth.GenerateVersion(version, seed)
			}
			if err != nil {
				return fmt.Errorf("corpus gen: %w", err)
			}
			for _, name := range names {
				path := filepath.Join(out, name+".jsonl")
				if err := a.lib.WriteJSONL(path, splits[name]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d cases\n", path, len(splits[name]))
			}
			return nil
		},
	}
	cmd.Flags().Uint64Var(&seed, "seed", corpus.DefaultSeed, "generator seed")
	cmd.Flags().IntVar(&version, "version", synth.Default, "generator version (1, 2 or 3)")
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().StringVar(&benchmark, "benchmark", "", "write this benchmark's built-in corpus instead: "+strings.Join(a.lib.BenchSplitOwners(), ", "))
	return cmd
}

func (a *app) corpusStatsCmd() *cobra.Command {
	var against string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats REF",
		Short: "Summarise a corpus (a JSONL file or builtin:[v<version>:]<split>[@seed])",
		Example: `  clinevo corpus stats builtin:stream
  clinevo corpus stats builtin:heldout --against builtin:stream
  clinevo corpus stats cases.jsonl --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.lib.Load(args[0])
			if err != nil {
				return badInput(err)
			}
			var b *corpus.Corpus
			if against != "" {
				if b, err = a.lib.Load(against); err != nil {
					return badInput(err)
				}
			}
			if asJSON {
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
	cmd.Flags().StringVar(&against, "against", "", "also report the openings REF shares with this corpus (normalised)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

func (a *app) corpusImportCmd() *cobra.Command {
	var out string
	var skipInvalid, dropImages bool
	var files map[string]string
	cmd := &cobra.Command{
		Use:   "import FORMAT IN",
		Short: "Convert an external corpus to native JSONL",
		Long:  "Convert an external corpus to native JSONL. FORMAT is one of:\n" + a.formatList(),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput(fmt.Errorf("corpus import: --out FILE is required"))
			}
			cases, skipped, err := a.lib.ImportFile(args[0], args[1], out, corpus.Options{SkipInvalid: skipInvalid, Files: files, DropImageCases: dropImages})
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
			reportRedactions(cmd.ErrOrStderr(), cases)
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d cases imported from %s\n", out, len(cases), args[1])
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output JSONL file")
	cmd.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "import every valid case and list the invalid ones, where the format can (default: any invalid one fails the import)")
	cmd.Flags().StringToStringVar(&files, "file", nil, "a companion file the format reads, NAME=PATH (repeatable; see the formats' files below)")
	cmd.Flags().BoolVar(&dropImages, "drop-image-cases", false, "agentclinic: leave out the NEJM cases whose source shows an image (default: import them as text, marked by provenance.image_url)")
	return cmd
}

// reportRedactions lists what the import redacted of each case (a text
// that named the diagnosis).
func reportRedactions(w io.Writer, cases []clinic.Case) {
	redacted := 0
	for _, c := range cases {
		for _, r := range c.Provenance.Redactions {
			fmt.Fprintf(w, "case %s: redacted: %s\n", c.ID, r)
		}
		if len(c.Provenance.Redactions) > 0 {
			redacted++
		}
	}
	if redacted > 0 {
		fmt.Fprintf(w, "redacted cases: %d (a text named the diagnosis)\n", redacted)
	}
}

// formatList lists the import formats, and the companion files each
// reads, for the command's help.
func (a *app) formatList() string {
	var b strings.Builder
	for _, f := range a.lib.Formats() {
		fmt.Fprintf(&b, "  %-15s %s\n", f.Name, f.Doc)
		for _, o := range f.Files {
			fmt.Fprintf(&b, "  %-15s   --file %s=PATH: %s\n", "", o.Name, o.Doc)
		}
	}
	return b.String()
}
