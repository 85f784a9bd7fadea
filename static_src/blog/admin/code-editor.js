/*
 * The code block's source field in the Wagtail admin: a CodeMirror 6 editor
 * over the <textarea> that Django renders (blog/widgets.py, CodeEditor).
 *
 * The textarea stays in the form, visually hidden, and is rewritten on every
 * change, so the page form posts it as before. Wagtail's StreamField creates
 * the widget through telepath ("Form widget client-side API" in Wagtail's
 * reference): `render()` returns a bound widget with getValue/getState/
 * setState/focus. Syntax colours follow the language <select> of the same
 * block; the light or dark palette follows the admin's theme.
 *
 * Built by esbuild (`npm run build`) into build/static/blog/admin/.
 */

import { minimalSetup } from 'codemirror';
import { Compartment, EditorState } from '@codemirror/state';
import {
  Decoration,
  EditorView,
  MatchDecorator,
  ViewPlugin,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { indentWithTab } from '@codemirror/commands';
import {
  HighlightStyle,
  StreamLanguage,
  bracketMatching,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from '@codemirror/language';
import { classHighlighter, tags as t } from '@lezer/highlight';
import { cpp } from '@codemirror/lang-cpp';
import { python } from '@codemirror/lang-python';
import { javascript } from '@codemirror/lang-javascript';
import { markdown } from '@codemirror/lang-markdown';
import { shell } from '@codemirror/legacy-modes/mode/shell';
import { rust } from '@codemirror/legacy-modes/mode/rust';
import { go } from '@codemirror/legacy-modes/mode/go';
import { java, csharp, kotlin, scala } from '@codemirror/legacy-modes/mode/clike';
import { standardSQL, mySQL, pgSQL, sqlite } from '@codemirror/legacy-modes/mode/sql';
import { yaml } from '@codemirror/legacy-modes/mode/yaml';
import { toml } from '@codemirror/legacy-modes/mode/toml';
import { json } from '@codemirror/legacy-modes/mode/javascript';
import { diff } from '@codemirror/legacy-modes/mode/diff';
import { dockerFile } from '@codemirror/legacy-modes/mode/dockerfile';
import { cmake } from '@codemirror/legacy-modes/mode/cmake';
import { gas } from '@codemirror/legacy-modes/mode/gas';
import { lua } from '@codemirror/legacy-modes/mode/lua';
import { haskell } from '@codemirror/legacy-modes/mode/haskell';
import { properties } from '@codemirror/legacy-modes/mode/properties';
import { css } from '@codemirror/legacy-modes/mode/css';
import { html, xml } from '@codemirror/legacy-modes/mode/xml';
import { ruby } from '@codemirror/legacy-modes/mode/ruby';
import { perl } from '@codemirror/legacy-modes/mode/perl';
import { julia } from '@codemirror/legacy-modes/mode/julia';
import { fortran } from '@codemirror/legacy-modes/mode/fortran';
import { r } from '@codemirror/legacy-modes/mode/r';
import { swift } from '@codemirror/legacy-modes/mode/swift';
import { stex } from '@codemirror/legacy-modes/mode/stex';
import { powerShell } from '@codemirror/legacy-modes/mode/powershell';
import { protobuf } from '@codemirror/legacy-modes/mode/protobuf';
import { nginx } from '@codemirror/legacy-modes/mode/nginx';
import { verilog } from '@codemirror/legacy-modes/mode/verilog';

const legacy = (mode) => () => StreamLanguage.define(mode);

// Pygments' short names (rendering/code.py's choices) to CodeMirror languages;
// any other name is edited as plain text.
const LANGUAGES = {
  cuda: () => [cpp(), cudaKeywords],
  cpp: () => cpp(),
  c: () => cpp(),
  'objective-c': () => cpp(),
  python: () => python(),
  python2: () => python(),
  numpy: () => python(),
  cython: () => python(),
  javascript: () => javascript(),
  jsx: () => javascript({ jsx: true }),
  typescript: () => javascript({ typescript: true }),
  tsx: () => javascript({ typescript: true, jsx: true }),
  markdown: () => markdown(),
  bash: legacy(shell),
  sh: legacy(shell),
  zsh: legacy(shell),
  console: legacy(shell),
  shell: legacy(shell),
  rust: legacy(rust),
  go: legacy(go),
  java: legacy(java),
  csharp: legacy(csharp),
  kotlin: legacy(kotlin),
  scala: legacy(scala),
  sql: legacy(standardSQL),
  mysql: legacy(mySQL),
  postgresql: legacy(pgSQL),
  sqlite3: legacy(sqlite),
  yaml: legacy(yaml),
  toml: legacy(toml),
  json: legacy(json),
  diff: legacy(diff),
  dockerfile: legacy(dockerFile),
  cmake: legacy(cmake),
  gas: legacy(gas),
  lua: legacy(lua),
  haskell: legacy(haskell),
  ini: legacy(properties),
  css: legacy(css),
  html: legacy(html),
  xml: legacy(xml),
  ruby: legacy(ruby),
  perl: legacy(perl),
  julia: legacy(julia),
  fortran: legacy(fortran),
  r: legacy(r),
  swift: legacy(swift),
  tex: legacy(stex),
  latex: legacy(stex),
  powershell: legacy(powerShell),
  protobuf: legacy(protobuf),
  nginx: legacy(nginx),
  verilog: legacy(verilog),
};

function languageSupport(name) {
  const make = LANGUAGES[name];
  return make ? make() : [];
}

// CUDA's qualifiers and built-in variables, which C++'s grammar reads as
// plain identifiers.
const cudaKeywords = ViewPlugin.fromClass(
  class {
    constructor(view) {
      this.decorations = CUDA_WORDS.createDeco(view);
    }

    update(update) {
      this.decorations = CUDA_WORDS.updateDeco(update, this.decorations);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);
const CUDA_WORDS = new MatchDecorator({
  regexp:
    /\b(?:__(?:global|device|host|shared|constant|managed|restrict|forceinline|noinline|launch_bounds|grid_constant)__|__syncthreads|__syncwarp|threadIdx|blockIdx|blockDim|gridDim|warpSize)\b/g,
  decoration: Decoration.mark({ class: 'cm-cuda-keyword tok-keyword' }),
});

// Colours of GitHub's light and dark code themes: readable on Wagtail's
// field backgrounds (white; grey-600 in the dark theme).
const PALETTES = {
  light: {
    keyword: '#cf222e',
    string: '#0a3069',
    comment: '#6e7781',
    number: '#0550ae',
    type: '#953800',
    function: '#8250df',
    meta: '#116329',
    invalid: '#82071e',
    selection: '#b6d7ff',
    activeLine: 'rgba(0, 0, 0, 0.035)',
    cursor: '#24292f',
  },
  dark: {
    keyword: '#ff7b72',
    string: '#a5d6ff',
    comment: '#8b949e',
    number: '#79c0ff',
    type: '#ffa657',
    function: '#d2a8ff',
    meta: '#7ee787',
    invalid: '#ffa198',
    selection: '#264f78',
    activeLine: 'rgba(255, 255, 255, 0.05)',
    cursor: '#e6edf3',
  },
};

function highlightStyle(p) {
  return HighlightStyle.define([
    { tag: [t.keyword, t.controlKeyword, t.operatorKeyword, t.modifier, t.self], color: p.keyword },
    { tag: [t.string, t.special(t.string), t.regexp, t.character], color: p.string },
    { tag: [t.comment, t.lineComment, t.blockComment, t.docComment], color: p.comment, fontStyle: 'italic' },
    { tag: [t.number, t.bool, t.null, t.atom, t.unit], color: p.number },
    { tag: [t.typeName, t.className, t.namespace, t.standard(t.typeName)], color: p.type },
    { tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.function(t.variableName)), t.macroName], color: p.function },
    { tag: [t.meta, t.processingInstruction, t.labelName], color: p.meta },
    { tag: [t.heading], color: p.keyword, fontWeight: 'bold' },
    { tag: [t.emphasis], fontStyle: 'italic' },
    { tag: [t.strong], fontWeight: 'bold' },
    { tag: [t.link, t.url], color: p.string, textDecoration: 'underline' },
    { tag: [t.inserted], color: p.meta },
    { tag: [t.deleted, t.invalid], color: p.invalid },
  ]);
}

function editorTheme(p, dark) {
  return EditorView.theme(
    {
      '&': {
        color: 'var(--w-color-text-context)',
        backgroundColor: 'var(--w-color-surface-field)',
        border: '1px solid var(--w-color-border-field-default)',
        borderRadius: '.3125rem',
        fontSize: '0.9375rem',
      },
      '&:hover': { borderColor: 'var(--w-color-border-field-hover)' },
      '&.cm-focused': {
        outline: '3px solid var(--w-color-focus)',
        outlineOffset: '0',
      },
      '&[aria-invalid=true], &.code-editor--invalid': {
        borderColor: 'var(--w-color-border-field-error, var(--w-color-critical-200))',
      },
      '.cm-scroller': {
        fontFamily:
          'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", "Noto Sans Mono CJK SC", monospace',
        lineHeight: '1.55',
        maxHeight: '70vh',
      },
      // Ten lines tall when short, so a click below the code lands in it.
      '.cm-content, .cm-gutter': { minHeight: '15.5em' },
      '.cm-content': { caretColor: p.cursor, padding: '0.5rem 0' },
      // The editor's frame shows focus; the admin would outline the lines too.
      '.cm-content:focus, .cm-content:focus-visible': { outline: 'none' },
      '.cm-cursor, .cm-dropCursor': { borderLeftColor: p.cursor },
      '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection':
        { backgroundColor: p.selection },
      '.cm-gutters': {
        backgroundColor: 'var(--w-color-surface-page)',
        color: 'var(--w-color-text-meta)',
        borderRight: '1px solid var(--w-color-border-furniture)',
        borderRadius: '.3125rem 0 0 .3125rem',
      },
      '.cm-lineNumbers .cm-gutterElement': { padding: '0 0.5rem 0 0.75rem' },
      '.cm-activeLine': { backgroundColor: p.activeLine },
      '.cm-activeLineGutter': {
        backgroundColor: p.activeLine,
        color: 'var(--w-color-text-context)',
      },
      '.cm-matchingBracket, &.cm-focused .cm-matchingBracket': {
        backgroundColor: p.selection,
        outline: 'none',
      },
      // Over the colour C++ gives the word (__global__ reads as a type).
      '.cm-cuda-keyword, .cm-cuda-keyword span': { color: p.keyword },
    },
    { dark },
  );
}

const THEMES = Object.fromEntries(
  Object.entries(PALETTES).map(([name, palette]) => [
    name,
    [editorTheme(palette, name === 'dark'), syntaxHighlighting(highlightStyle(palette))],
  ]),
);

// Wagtail puts w-theme-light, w-theme-dark or w-theme-system on <html>.
const prefersDark = window.matchMedia('(prefers-color-scheme: dark)');

function adminTheme() {
  const root = document.documentElement.classList;
  const dark =
    root.contains('w-theme-dark') || (root.contains('w-theme-system') && prefersDark.matches);
  return dark ? 'dark' : 'light';
}

// Every editor on the page, to restyle when the system theme changes.
const editors = new Set();

prefersDark.addEventListener('change', () => {
  const theme = adminTheme();
  editors.forEach((editor) => {
    if (editor.view.dom.isConnected) editor.setTheme(theme);
    else editors.delete(editor);
  });
});

// A change of any language <select> restyles the editors that follow it.
document.addEventListener('change', (event) => {
  const select = event.target;
  if (!(select instanceof HTMLSelectElement) || !select.name) return;
  editors.forEach((editor) => {
    if (!editor.view.dom.isConnected) editors.delete(editor);
    else if (editor.languageSelectName === select.name) editor.setLanguage(select.value);
  });
});

class BoundCodeEditor {
  constructor(textarea, options) {
    this.textarea = textarea;
    this.idForLabel = textarea.id;
    this.language = new Compartment();
    this.theme = new Compartment();
    this.currentLanguage = null;
    this.currentTheme = adminTheme();
    this.languageSelectName = siblingName(textarea.name, options.languageField);

    const hint = options.hint ? document.createElement('p') : null;
    this.view = new EditorView({ state: this.makeState(textarea.value) });
    this.view.dom.classList.add('code-editor');
    textarea.classList.add('code-editor__source');
    textarea.after(this.view.dom);
    if (hint) {
      hint.className = 'help code-editor__hint';
      hint.id = `${textarea.id}-hint`;
      hint.style.marginTop = '0.5rem';
      hint.textContent = options.hint;
      this.view.dom.after(hint);
      this.view.contentDOM.setAttribute('aria-describedby', hint.id);
    }
    hideVisually(textarea);
    // A click on the field's <label> focuses the textarea: pass it on.
    textarea.addEventListener('focus', () => this.view.focus());

    this.setLanguage(this.languageFromSelect() || options.language || 'text');
    editors.add(this);
    // The label and the <select> may be drawn after this field.
    requestAnimationFrame(() => {
      this.labelEditor();
      const language = this.languageFromSelect();
      if (language) this.setLanguage(language);
    });
  }

  makeState(doc) {
    return EditorState.create({
      doc,
      extensions: [
        minimalSetup,
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        indentUnit.of('    '),
        EditorState.tabSize.of(4),
        // Tab indents, Shift+Tab outdents; Esc then Tab leaves the editor.
        keymap.of([indentWithTab]),
        syntaxHighlighting(classHighlighter),
        this.language.of([]),
        this.theme.of(THEMES[this.currentTheme]),
        EditorView.contentAttributes.of({
          spellcheck: 'false',
          autocorrect: 'off',
          autocapitalize: 'off',
          translate: 'no',
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) this.sync();
        }),
      ],
    });
  }

  sync() {
    this.textarea.value = this.view.state.doc.toString();
    // Wagtail's unsaved-changes check and autosave listen for input events.
    this.textarea.dispatchEvent(new Event('input', { bubbles: true }));
  }

  languageFromSelect() {
    if (!this.languageSelectName) return null;
    const scope = this.textarea.closest('form') || document;
    const select = scope.querySelector(`select[name="${CSS.escape(this.languageSelectName)}"]`);
    return select ? select.value : null;
  }

  labelEditor() {
    const label = document.querySelector(`label[for="${CSS.escape(this.textarea.id)}"]`);
    if (!label) return;
    if (!label.id) label.id = `${this.textarea.id}-label`;
    this.view.contentDOM.setAttribute('aria-labelledby', label.id);
  }

  setLanguage(name) {
    if (name === this.currentLanguage) return;
    this.currentLanguage = name;
    this.view.dom.dataset.language = name;
    this.view.dispatch({ effects: this.language.reconfigure(languageSupport(name)) });
  }

  setTheme(name) {
    if (name === this.currentTheme) return;
    this.currentTheme = name;
    this.view.dispatch({ effects: this.theme.reconfigure(THEMES[name]) });
  }

  getValue() {
    return this.view.state.doc.toString();
  }

  getState() {
    return this.getValue();
  }

  setState(state) {
    const text = state == null ? '' : String(state);
    if (text === this.getValue()) return;
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
  }

  setInvalid(invalid) {
    this.view.dom.classList.toggle('code-editor--invalid', Boolean(invalid));
    if (invalid) this.view.contentDOM.setAttribute('aria-invalid', 'true');
    else this.view.contentDOM.removeAttribute('aria-invalid');
  }

  getTextLabel(opts) {
    const firstLine = this.getValue().split('\n').find((line) => line.trim()) || '';
    const text = firstLine.trim();
    const maxLength = opts && opts.maxLength;
    return maxLength && text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
  }

  focus() {
    this.view.focus();
  }
}

// "body-0-value-code" and "language" -> "body-0-value-language".
function siblingName(name, field) {
  if (!field) return null;
  const cut = name.lastIndexOf('-');
  return cut < 0 ? field : `${name.slice(0, cut)}-${field}`;
}

function hideVisually(element) {
  element.setAttribute('tabindex', '-1');
  element.setAttribute('aria-hidden', 'true');
  Object.assign(element.style, {
    position: 'absolute',
    width: '1px',
    height: '1px',
    padding: '0',
    margin: '-1px',
    overflow: 'hidden',
    clipPath: 'inset(50%)',
    border: '0',
    opacity: '0',
  });
}

class CodeEditor {
  constructor(html, options) {
    this.html = html;
    this.options = options || {};
  }

  render(placeholder, name, id, initialState) {
    const container = document.createElement('div');
    container.innerHTML = this.html.replace(/__NAME__/g, name).replace(/__ID__/g, id).trim();
    const element = container.firstElementChild;
    placeholder.replaceWith(element);
    const textarea = element.matches('textarea') ? element : element.querySelector('textarea');
    if (initialState != null) textarea.value = initialState;
    return new BoundCodeEditor(textarea, this.options);
  }

  getByName(name, container) {
    const textarea = container.querySelector(`textarea[name="${CSS.escape(name)}"]`);
    if (!textarea) throw new Error(`No code editor named "${name}"`);
    return new BoundCodeEditor(textarea, this.options);
  }
}

window.telepath.register('blog.widgets.CodeEditor', CodeEditor);
