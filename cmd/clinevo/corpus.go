package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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
			v, err := a.lib.Check(args[0], strict)
			if err != nil {
				return badInput(err)
			}
			return output(cmd, asJSON, v, v.Write)
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
			return a.lib.WriteSplits(cmd.OutOrStdout(), out, benchmark, version, seed)
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
			sum := corpus.Summarise(c, b)
			return output(cmd, asJSON, sum, sum.Write)
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
		Long:  "Convert an external corpus to native JSONL. FORMAT is one of:\n" + a.lib.FormatHelp(),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput(fmt.Errorf("corpus import: --out FILE is required"))
			}
			err := a.lib.ImportTo(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], args[1], out,
				corpus.Options{SkipInvalid: skipInvalid, Files: files, DropImageCases: dropImages})
			var write *corpus.WriteError
			if err != nil && !errors.As(err, &write) {
				return badInput(err)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output JSONL file")
	cmd.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "import every valid case and list the invalid ones, where the format can (default: any invalid one fails the import)")
	cmd.Flags().StringToStringVar(&files, "file", nil, "a companion file the format reads, NAME=PATH (repeatable; see the formats' files below)")
	cmd.Flags().BoolVar(&dropImages, "drop-image-cases", false, "agentclinic: leave out the NEJM cases whose source shows an image (default: import them as text, marked by provenance.image_url)")
	return cmd
}
