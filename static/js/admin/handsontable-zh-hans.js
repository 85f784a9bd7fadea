// Chinese strings for the table block's context menu (Handsontable 6).
// Wagtail sets the table's language to the site's, zh-hans; unregistered,
// Handsontable logs an error on every edit page with a table and falls back
// to English. Phrases not listed here still come from en-US.
(function () {
  "use strict";
  var languages = window.Handsontable && window.Handsontable.languages;
  if (!languages || languages.getLanguageDictionary("zh-hans")) {
    return;
  }
  var keys = languages.dictionaryKeys;
  var dictionary = { languageCode: "zh-hans" };
  dictionary[keys.CONTEXTMENU_ITEMS_ROW_ABOVE] = "在上方插入行";
  dictionary[keys.CONTEXTMENU_ITEMS_ROW_BELOW] = "在下方插入行";
  dictionary[keys.CONTEXTMENU_ITEMS_INSERT_LEFT] = "在左侧插入列";
  dictionary[keys.CONTEXTMENU_ITEMS_INSERT_RIGHT] = "在右侧插入列";
  dictionary[keys.CONTEXTMENU_ITEMS_REMOVE_ROW] = ["删除行", "删除这些行"];
  dictionary[keys.CONTEXTMENU_ITEMS_REMOVE_COLUMN] = ["删除列", "删除这些列"];
  dictionary[keys.CONTEXTMENU_ITEMS_UNDO] = "撤销";
  dictionary[keys.CONTEXTMENU_ITEMS_REDO] = "重做";
  dictionary[keys.CONTEXTMENU_ITEMS_COPY] = "复制";
  dictionary[keys.CONTEXTMENU_ITEMS_CUT] = "剪切";
  dictionary[keys.CONTEXTMENU_ITEMS_ALIGNMENT] = "对齐";
  dictionary[keys.CONTEXTMENU_ITEMS_MERGE_CELLS] = "合并单元格";
  dictionary[keys.CONTEXTMENU_ITEMS_UNMERGE_CELLS] = "取消合并";
  languages.registerLanguageDictionary(dictionary);
})();
