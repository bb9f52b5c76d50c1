/**
 * Assistant text as HTML: markdown-it with raw HTML disabled (the model's text is never trusted
 * markup), links not followed by the webview, and fenced code highlighted by highlight.js. Pure:
 * used by the webview and by unit tests.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import lua from 'highlight.js/lib/languages/lua';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import MarkdownIt from 'markdown-it';

// A dozen common languages keep the webview bundle small; others show as plain code.
const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, lua, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) {
  hljs.registerLanguage(name, language);
}

const md: MarkdownIt = new MarkdownIt({
  html: false,
  linkify: false,
  breaks: false,
  highlight: (code: string, lang: string): string => {
    if (lang && hljs.getLanguage(lang)) {
      try {
        return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
      } catch {
        // An odd snippet is shown plain rather than not at all.
      }
    }
    return '';
  },
});

/** The HTML of a markdown text (a streamed prefix renders as well as the whole). */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
