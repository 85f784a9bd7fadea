/*
 * The one place our admin scripts touch Wagtail's StreamField from JavaScript.
 *
 * Wagtail 8 documents no client API for adding blocks with values. Its block
 * controller (w-block) keeps the top-level StreamBlock on the element it draws,
 * as `element.rootBlock`, and that StreamBlock inserts and deletes children
 * with `insert({type, value, id}, index, opts)` and `deleteBlock(index, opts)`
 * (what its own "+" and delete buttons call). `check()` says what is missing if
 * an upgrade changes any of it; tests/e2e/test_md_paste.py calls it.
 */
(function () {
  "use strict";

  function rootOf(element) {
    for (let node = element; node; node = node.parentElement) {
      if (node.rootBlock) return node.rootBlock;
    }
    return null;
  }

  function roots() {
    return Array.from(document.querySelectorAll("[id$='-root']"))
      .filter((element) => element.rootBlock)
      .map((element) => element.rootBlock);
  }

  function problems(root) {
    const missing = [];
    if (!root) return ["no element carries rootBlock (w-block controller)"];
    for (const name of ["insert", "deleteBlock"]) {
      if (typeof root[name] !== "function") missing.push(`rootBlock.${name}()`);
    }
    if (!Array.isArray(root.children)) missing.push("rootBlock.children");
    if (!root.blockDef || !root.blockDef.childBlockDefsByName) {
      missing.push("rootBlock.blockDef.childBlockDefsByName");
    }
    if (!(root.element instanceof HTMLElement)) missing.push("rootBlock.element");
    const child = root.children && root.children[0];
    if (child && (!(child.element instanceof HTMLElement) || !child.type)) {
      missing.push("child.element / child.type");
    }
    return missing;
  }

  const adapter = {
    rootOf,
    roots,
    /** Return what this module relies on and Wagtail no longer provides. */
    check(root) {
      return problems(root || roots()[0]);
    },
    /** Return whether the stream offers every one of these block types. */
    accepts(root, types) {
      const defs = root.blockDef.childBlockDefsByName;
      return types.every((type) => Object.hasOwn(defs, type));
    },
    /** Return the index of the child holding `element`, or -1. */
    indexOf(root, element) {
      return root.children.findIndex((child) => child.element.contains(element));
    },
    count(root) {
      return root.children.length;
    },
    typeAt(root, index) {
      return root.children[index].type;
    },
    elementAt(root, index) {
      return root.children[index].element;
    },
    /** Insert blocks ({type, value, id} form states) from `index` on, in order. */
    insert(root, states, index) {
      const problems_ = problems(root);
      if (problems_.length) {
        throw new Error(`Wagtail StreamField API changed: ${problems_.join(", ")}`);
      }
      states.forEach((state, offset) => {
        root.insert(state, index + offset, { animate: false, focus: false });
      });
    },
    remove(root, index) {
      root.deleteBlock(index, { animate: false });
    },
  };

  window.techblogStreamField = adapter;
})();
