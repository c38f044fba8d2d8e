package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// cliDocsDir is where the CLI reference lives, from the repository root.
const cliDocsDir = "docs/cli"

// docsCmd writes the CLI reference: one Markdown page per command, made by
// cobra's generator from the commands' help (TestCLIDocsAreCurrent fails
// when the committed pages differ; `go generate ./cmd/clinevo` or
// `clinevo docs --out docs/cli` rewrites them).
func docsCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:     "docs",
		Short:   "Write the CLI reference as Markdown, one page per command",
		Example: "  clinevo docs --out docs/cli",
		Hidden:  true,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := writeCLIDocs(out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote the CLI reference to %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", cliDocsDir, "output directory")
	return cmd
}

// writeCLIDocs writes the reference of a fresh command tree into dir,
// replacing the pages there.
func writeCLIDocs(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := newRoot()
	root.DisableAutoGenTag = true // no date in the pages: they are compared
	return doc.GenMarkdownTree(root, dir)
}
