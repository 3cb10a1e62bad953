// Package localfs lists local directories for datasets, following symbolic links. A Hive
// folder is often assembled from partition directories that live elsewhere (`day=1 ->
// /archive/2024-01-01`), and a glob over it must see what DuckDB's `read_parquet` sees, so
// the dataset walk and the Delta log listing both go through here.
//
// Link rules, the same in the JS bridge (jsbridge/src/node-dir.js):
//   - A link to a directory is a directory, a link to a file a file; both keep the link's
//     path, so a Hive value comes from the link's name, not the target's.
//   - A broken link (its target missing, or a chain of links that loops) is left out, as
//     DuckDB's globs leave it out: there is no file to read and no way to tell what it was.
//   - A link to a directory on its own path (itself or an ancestor: a cycle) is not followed.
//     Everything below that directory is already being walked, so nothing is lost, and each
//     file is listed once, under its path without the loop. Two links to one directory from
//     different places are both followed: distinct Hive partitions may share their files.
//
// Only regular files and directories are listed; devices, sockets and pipes are left out.
// A walk enters at most MaxDirs directories: links that lead into the same folders from many
// places multiply a tree (a chain of folders each linking twice to the next doubles it at
// every step), and a walk over such a tree would never end.
// Not for the wasm module: it does I/O.
package localfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MaxDirs bounds the directories one Walk enters (ErrTooManyDirs past it): far more than a
// Hive folder has, and reached within seconds by a tree that links multiply.
var MaxDirs = 1 << 20

// ErrTooManyDirs reports a walk that entered more than MaxDirs directories.
var ErrTooManyDirs = errors.New("localfs: too many directories (links that lead into the same folders from many places?)")

// Entry is one directory entry with symbolic links resolved.
type Entry struct {
	Name string // the entry's name in its directory (a link's own name)
	Dir  bool   // a directory, or a link to one
	info fs.FileInfo
	de   fs.DirEntry
}

// Info returns the file information of the entry's target (a link's target's, not the link's).
func (e Entry) Info() (fs.FileInfo, error) {
	if e.info != nil {
		return e.info, nil
	}
	return e.de.Info()
}

// ReadDir lists dir sorted by name, links resolved by the rules of the package doc. A plain
// file costs no stat; a directory and a link cost one.
func ReadDir(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(des))
	for _, de := range des {
		e := Entry{Name: de.Name(), de: de}
		switch t := de.Type(); {
		case t.IsRegular():
		case t.IsDir():
			if e.info, err = de.Info(); err != nil {
				return nil, err
			}
			e.Dir = true
		case t&fs.ModeSymlink != 0:
			e.info, err = os.Stat(filepath.Join(dir, e.Name))
			if broken(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if !e.info.IsDir() && !e.info.Mode().IsRegular() {
				continue
			}
			e.Dir = e.info.IsDir()
		default:
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// broken reports whether a link's stat error means the link leads nowhere: a missing target
// or a loop of links. Other errors (a permission) are the caller's to see.
func broken(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP)
}

// Walk calls fn with the path of every regular file below root (root joined with the names
// on the way, links kept as named), directory by directory in name order, following links
// by the rules of the package doc. An error from fn or from reading a directory ends the walk
// and is returned.
func Walk(root string, fn func(path string) error) error {
	st, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &fs.PathError{Op: "walk", Path: root, Err: syscall.ENOTDIR}
	}
	dirs := 0
	return walk(root, []fs.FileInfo{st}, &dirs, fn)
}

// walk lists dir; up holds the directories from the root down to dir, to recognise a cycle;
// dirs counts the directories entered.
func walk(dir string, up []fs.FileInfo, dirs *int, fn func(string) error) error {
	if *dirs++; *dirs > MaxDirs {
		return fmt.Errorf("%w: more than %d below %s", ErrTooManyDirs, MaxDirs, filepath.Clean(dir))
	}
	ents, err := ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name)
		if !e.Dir {
			if err := fn(p); err != nil {
				return err
			}
			continue
		}
		if onPath(up, e.info) {
			continue // a cycle: see the package doc
		}
		if err := walk(p, append(up, e.info), dirs, fn); err != nil {
			return err
		}
	}
	return nil
}

// onPath reports whether the directory d is one of up.
func onPath(up []fs.FileInfo, d fs.FileInfo) bool {
	for _, a := range up {
		if os.SameFile(a, d) {
			return true
		}
	}
	return false
}
