'use strict';
// createdAt after/before a value copied from a record, and "today", with the workflow's time zone set (see ../lib/created-at.js)
module.exports = require('../lib/created-at').createdAtCheck('NewYork');
