// Command tlog-interop checks an archive log written by krabka with
// implementations of the open formats that are not ours: Go's
// golang.org/x/mod/sumdb/note verifies the checkpoint's Ed25519 note
// signature by the log's verifier key, torchwood parses the checkpoint
// (c2sp.org/tlog-checkpoint) and the entry bundles (c2sp.org/tlog-tiles),
// and golang.org/x/mod/sumdb/tlog computes the tree's root from the
// archive's hash tiles and proves every leaf's inclusion.
//
// Usage:
//
//	tlog-interop -dir <archive>/_krabka-log -log-key <vkey> -checkpoint <n>
//
// It exits 0 when every check passes and prints what it checked; 1 with the
// reason otherwise.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func main() {
	dir := flag.String("dir", "", "the archive log's directory (<prefix>/_krabka-log)")
	logKey := flag.String("log-key", "", "the log's verifier key (name+hash+base64, type 01)")
	seq := flag.Int("checkpoint", 0, "the checkpoint number to check")
	flag.Parse()
	if err := run(*dir, *logKey, *seq); err != nil {
		fmt.Fprintln(os.Stderr, "tlog-interop:", err)
		os.Exit(1)
	}
}

// dirTiles reads C2SP tiles from the log's directory.
type dirTiles struct{ dir string }

func (d dirTiles) Height() int { return torchwood.TileHeight }

func (d dirTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(torchwood.TilePath(t))))
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (d dirTiles) SaveTiles([]tlog.Tile, [][]byte) {}

func run(dir, logKey string, seq int) error {
	verifier, err := note.NewVerifier(logKey)
	if err != nil {
		return fmt.Errorf("log key: %w", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "checkpoints", fmt.Sprintf("%020d", seq)))
	if err != nil {
		return err
	}
	n, err := note.Open(raw, note.VerifierList(verifier))
	if err != nil {
		return fmt.Errorf("x/mod/sumdb/note refuses the checkpoint: %w", err)
	}
	c, err := torchwood.ParseCheckpoint(n.Text)
	if err != nil {
		return fmt.Errorf("torchwood refuses the checkpoint: %w", err)
	}
	if c.Origin != verifier.Name() {
		return fmt.Errorf("origin %q, key %q", c.Origin, verifier.Name())
	}
	tree := c.Tree
	tiles := dirTiles{dir}
	hashes := tlog.TileHashReader(tree, tiles)
	root, err := tlog.TreeHash(tree.N, hashes)
	if err != nil {
		return fmt.Errorf("x/mod/sumdb/tlog cannot compute the root from the tiles: %w", err)
	}
	if root != tree.Hash {
		return fmt.Errorf("the tiles give root %v, the checkpoint says %v", root, tree.Hash)
	}
	// Every leaf of the entry bundles: its record hash, proved included.
	leaves := int64(0)
	for bundle := int64(0); bundle*torchwood.TileWidth < tree.N; bundle++ {
		width := tree.N - bundle*torchwood.TileWidth
		if width > torchwood.TileWidth {
			width = torchwood.TileWidth
		}
		t := tlog.Tile{H: torchwood.TileHeight, L: -1, N: bundle, W: int(width)}
		data, err := tiles.ReadTiles([]tlog.Tile{t})
		if err != nil {
			return fmt.Errorf("entry bundle %d: %w", bundle, err)
		}
		rest := data[0]
		for len(rest) > 0 {
			var entry []byte
			entry, rest, err = torchwood.ReadTileEntry(rest)
			if err != nil {
				return fmt.Errorf("entry bundle %d: %w", bundle, err)
			}
			if !bytes.HasPrefix(entry, []byte("krabka-worm-log-entry-v1\x00")) {
				return fmt.Errorf("leaf %d is no krabka log entry", leaves)
			}
			proof, err := tlog.ProveRecord(tree.N, leaves, hashes)
			if err != nil {
				return fmt.Errorf("inclusion proof of leaf %d: %w", leaves, err)
			}
			if err := tlog.CheckRecord(proof, tree.N, tree.Hash, leaves, tlog.RecordHash(entry)); err != nil {
				return fmt.Errorf("leaf %d: %w", leaves, err)
			}
			leaves++
		}
	}
	if leaves != tree.N {
		return fmt.Errorf("%d leaves in the bundles, the checkpoint says %d", leaves, tree.N)
	}
	fmt.Printf("checkpoint %d of %s: signature verified by x/mod/sumdb/note, root of %d leaves verified by x/mod/sumdb/tlog from the tiles, every leaf's inclusion proved\n", seq, c.Origin, tree.N)
	return nil
}
